import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE } from '../../commands/shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { StoreUnavailable } from '../../domain/shared/errors.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';
import { TrustedClock } from '../../commands/shared/trusted-clock.js';
import {
  bodyDigest,
  classifyContentType,
  type PayloadFormat,
  type VerifiedDelivery,
  verifyDelivery,
} from '../sources/index.js';
import { observe } from '../../commands/shared/observe.js';
import { correlatedLink } from '../../commands/causality/correlated-link.js';
import { currentTrigger } from '../../commands/shared/lookups.js';
import { deriveDeliveryKey, webhookIdentity } from '../../domain/dedupe/dedupe-identity.js';
import { retentionSeconds } from '../../domain/dedupe/dedupe-window.js';
import {
  deliveredEvidence,
  observedOccurrence,
  observingTrigger,
} from '../../domain/occurrence/observed-occurrence.js';
import { Backpressure } from './backpressure.js';
import { IngressAudit } from './ingress-audit.js';
import { IngressCounts } from './ingress-counts.js';
import { type IngressAnswer, answer, problemAnswer, shed } from './ingress-answer.js';
import { type ParsedPayload, parsePayload } from './payload.js';
import { GITHUB_REPLAY_HORIZON_SECONDS, recordDelivery, type ReplayVerdict } from './replay-store.js';
import { type IngressSource, SourceRegistry } from './source-registry.js';
import { TriggerBindings } from './trigger-bindings.js';
import { DefinitionFreshness } from './definition-freshness.js';
import { CONFIG } from '../config/config.token.js';
import type { ReveilleConfig } from '../config/config.js';
import type { SourceBinding } from '../../domain/trigger/trigger-blocks.js';
import type { TriggerState } from '../../domain/trigger/trigger.js';

export interface IngressDelivery {
  rawHeaders: string[];
  headers: Record<string, string>;
  body: Buffer;
}

type Mapping =
  | Extract<ParsedPayload, { ok: false }>
  | {
      ok: true;
      parsed: Extract<ParsedPayload, { ok: true }>;
      triggers: Array<{ triggerId: string; trigger: TriggerState }> | null;
    };

interface Accepted {
  triggerId: string;
  occurrenceId: string;
  status: 'observed' | 'duplicate';
}

/**
 * Verify over the exact raw bytes, then replay state, then parse, map and append: the cheapest refusal
 * comes first, so each step rejects before the next one costs more (WH-1, WH-8). A signed source that
 * fails verification never falls through to unsigned handling (WH-4).
 */
@Injectable()
export class IngressPipeline {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
    private readonly clock: TrustedClock,
    private readonly sources: SourceRegistry,
    private readonly bindings: TriggerBindings,
    private readonly audit: IngressAudit,
    private readonly counts: IngressCounts,
    private readonly backpressure: Backpressure,
    private readonly freshness: DefinitionFreshness,
    @Inject(CONFIG) private readonly config: Pick<ReveilleConfig, 'maxJsonDepth'>,
  ) {}

  async handle(source: IngressSource, delivery: IngressDelivery): Promise<IngressAnswer> {
    try {
      return await this.process(source, delivery);
    } catch (error) {
      if (error instanceof StoreUnavailable || (error as { name?: string }).name === 'StoreUnavailable') {
        return problemAnswer(503, 'store_unavailable', 'Nothing was persisted; retry the delivery.', {
          'Retry-After': '1',
        });
      }
      throw error;
    }
  }

  private reject(
    source: IngressSource,
    delivery: IngressDelivery,
    status: number,
    code: string,
    detail: string,
    headers: Record<string, string> = {},
  ): IngressAnswer {
    return this.refuse(source, delivery, code, problemAnswer(status, code, detail, headers));
  }

  /** WH-9: every refusal is counted per source and reason. */
  private refuse(
    source: IngressSource,
    delivery: IngressDelivery,
    reason: string,
    refusal: IngressAnswer,
  ): IngressAnswer {
    this.audit.record(source.sourceId, reason, refusal.status, delivery.body.length);
    this.counts.count(source.sourceId, 'refused', reason);
    return refusal;
  }

  private async process(source: IngressSource, delivery: IngressDelivery): Promise<IngressAnswer> {
    // The Trigger writes this delivery must see mapped: every one answered before it started (WH-7).
    const unfolded = this.freshness.pending();
    const { definition } = source;
    const format = classifyContentType(delivery.rawHeaders);
    if (!format.ok) return this.reject(source, delivery, 400, 'malformed_request', format.detail);
    const verified = verifyDelivery({
      scheme: definition.scheme,
      rawHeaders: delivery.rawHeaders,
      body: delivery.body,
      keys: source.keys,
      toleranceSeconds: definition.toleranceSeconds,
      now: await this.clock.now(),
    });
    if (!verified.ok) {
      this.counts.authenticated(source.sourceId, { result: 'failed', keyId: null, reason: verified.code });
      return this.reject(source, delivery, verified.status, verified.code, verified.detail);
    }
    this.counts.authenticated(source.sourceId, { result: verified.authState, keyId: verified.keyId });

    const backlog = this.backpressure.check(source.tenant, source.sourceId);
    if (backlog) {
      const { limits } = this.backpressure;
      const [whose, limit] =
        backlog === 'outstanding_source' ? ['this source', limits.perSource] : ['all sources', limits.global];
      return this.refuse(
        source,
        delivery,
        backlog,
        shed(backlog, `Too many Occurrences of ${whose} await admission (limit ${limit}).`, 5),
      );
    }

    if (!(await this.freshness.folded(unfolded))) return bindingsCatchingUp();

    // The replay record and the mapping need nothing from each other, so their round trips overlap;
    // the replay verdict is still taken first, and nothing is appended before both are in.
    let [replay, mapping] = await Promise.all([
      this.recordReplay(source, delivery, verified),
      this.map(source, delivery, format.format, verified),
    ]);
    // A captured signature under a new delivery id does not authenticate this delivery: 401 signature_invalid,
    // one of api.md's three 401 codes. The security audit and the counts still name the reason `replay`.
    if (replay === 'replayed_signature')
      return this.refuse(
        source,
        delivery,
        'replay',
        problemAnswer(401, 'signature_invalid', 'This signature was already used by another delivery.'),
      );
    if (mapping.ok && mapping.triggers === null) {
      // "No subscriber" is final only once the bindings hold every write committed before now (WH-7): a Trigger
      // written through another process may not have been announced here yet, and a 202 would drop the event.
      if (!(await this.freshness.caughtUp())) return bindingsCatchingUp();
      this.bindings.forget(source.tenant, source.sourceId, mapping.parsed.eventType);
      mapping = await this.map(source, delivery, format.format, verified);
    }
    if (!mapping.ok) return this.reject(source, delivery, 400, 'malformed_request', mapping.detail);
    const { parsed, triggers } = mapping;
    if (triggers === null) {
      this.audit.record(source.sourceId, 'no_subscriber', 202, delivery.body.length);
      this.counts.count(source.sourceId, 'ignored');
      return answer(202, { occurrences: [] });
    }
    const evidence = deliveredEvidence(parsed.payload);
    // CA-2: after verification, from the source's own pointer, looked up in the log; recorded with the Occurrence.
    const causal = await correlatedLink(this.store, {
      tenant: source.tenant,
      sourceId: source.sourceId,
      correlationPointer: source.definition.correlationPointer,
      authState: verified.authState,
      payload: parsed.payload,
    });
    const observedAt = (await this.clock.now()).toISOString();
    const accepted: Accepted[] = [];
    for (const { triggerId, trigger } of triggers) {
      // The bindings may trail the Trigger by a moment: one no longer bound to this source or event type gets nothing.
      if (
        trigger.status === 'absent' ||
        trigger.deleted ||
        !bindsEvent(trigger.definition.source, source.sourceId, parsed.eventType)
      )
        continue;
      const key = deriveDeliveryKey(trigger.definition.dedupe, verified.deliveryId, parsed.payload);
      if (!key.ok) return this.reject(source, delivery, 400, 'malformed_request', `${key.message} (${key.pointer})`);
      const observed = observedOccurrence({
        kind: 'webhook',
        trigger: observingTrigger(trigger),
        dedupeIdentity: webhookIdentity(source.tenant, trigger, source.sourceId, key.key, key.subject),
        evidence,
        observedAt,
        auth: {
          state: verified.authState,
          sourceId: source.sourceId,
          keyId: verified.keyId,
          keyGeneration: verified.keyGeneration,
        },
        externalId: verified.deliveryId,
        causal,
      });
      const window = {
        retentionSeconds: retentionSeconds(trigger.definition.dedupe.windowSeconds, replayHorizon(source, verified)),
      };
      const metadata = {
        tenant: source.tenant,
        actor: `source:${source.sourceId}`,
        correlationId: verified.deliveryId,
        bodyDigest: bodyDigest(delivery.body),
      };
      const observation = await observe(this.store, observed, metadata, window);
      if (observation.outcome === 'payload_conflict') {
        return this.reject(
          source,
          delivery,
          409,
          'payload_conflict',
          'This delivery id was first accepted with a different payload.',
        );
      }
      if (observation.outcome === 'observed')
        this.backpressure.accepted(source.tenant, source.sourceId, observation.position);
      accepted.push({ triggerId, occurrenceId: observation.occurrenceId, status: observation.outcome });
      if (observation.outcome === 'duplicate') this.counts.duplicate(source.tenant, triggerId);
    }
    const allDuplicates = accepted.length > 0 && accepted.every((a) => a.status === 'duplicate');
    this.counts.count(source.sourceId, accepted.length === 0 ? 'ignored' : allDuplicates ? 'duplicate' : 'accepted');
    return answer(allDuplicates ? 200 : 202, { occurrences: accepted });
  }

  /** WH-4/DD-2: a verified delivery's (delivery id, signature) in the auth replay store; unsigned sources keep none. */
  private async recordReplay(
    source: IngressSource,
    delivery: IngressDelivery,
    verified: VerifiedDelivery,
  ): Promise<ReplayVerdict> {
    if (verified.authState !== 'verified') return 'first';
    const signature = delivery.headers['webhook-signature'] ?? delivery.headers['x-hub-signature-256'] ?? '';
    const horizon = replayHorizon(source, verified);
    return recordDelivery(
      this.sql,
      {
        tenant: source.tenant,
        sourceId: source.sourceId,
        deliveryId: verified.deliveryId,
        signature,
        horizonSeconds: horizon,
      },
      // Only when the events live in the same PostgreSQL can their commit carry this row's flush.
      { flushWithNextCommit: this.store.kind !== 'eventstoredb' },
    );
  }

  /** Parse (after authentication only, WH-6), then the Triggers server-side configuration binds (null: none). */
  private async map(
    source: IngressSource,
    delivery: IngressDelivery,
    format: PayloadFormat,
    verified: VerifiedDelivery,
  ): Promise<Mapping> {
    const parsed = parsePayload(delivery.body, delivery.headers, {
      format,
      eventTypePointer: source.definition.eventTypePointer,
      eventTypeHeader: verified.eventTypeHeader,
      requiredPointers: source.definition.schema.required,
      maxDepth: this.config.maxJsonDepth,
    });
    if (!parsed.ok) return parsed;
    const bound = await this.bindings.forEvent(source.tenant, source.sourceId, parsed.eventType);
    if (bound.length === 0) return { ok: true, parsed, triggers: null };
    const triggers = await Promise.all(
      bound.map(async ({ triggerId }) => ({
        triggerId,
        trigger: await currentTrigger(this.store, source.tenant, triggerId),
      })),
    );
    return { ok: true, parsed, triggers };
  }
}

function bindingsCatchingUp(): IngressAnswer {
  return problemAnswer(503, 'store_unavailable', 'The Trigger bindings are catching up; retry the delivery.', {
    'Retry-After': '1',
  });
}

/** The same rule as the bindings read model: no or empty event types = every type of the source. */
function bindsEvent(binding: SourceBinding | null | undefined, sourceId: string, eventType: string | null): boolean {
  if (!binding || binding.sourceId !== sourceId) return false;
  if (!binding.eventTypes || binding.eventTypes.length === 0) return true;
  return eventType !== null && binding.eventTypes.includes(eventType);
}

/**
 * WH-4/DD-2: how long the auth replay store keeps a verified delivery (unsigned sources keep none); a dedupe
 * window is never shorter (DD-4), so expiry never makes a retry the replay store still knows a new Occurrence.
 */
function replayHorizon(source: IngressSource, verified: VerifiedDelivery): number {
  if (verified.authState !== 'verified') return 0;
  const { definition } = source;
  return definition.scheme === 'github-hmac-sha256' ? GITHUB_REPLAY_HORIZON_SECONDS : definition.toleranceSeconds * 2;
}
