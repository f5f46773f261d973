import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE } from '../shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { badRequest, CommandRejected, notFound } from '../../domain/shared/errors.js';
import { reject } from '../../domain/shared/result.js';
import { payloadDigest } from '../../domain/occurrence/payload-digest.js';
import { dedupeIdentityHash, manualIdentity, occurrenceIdFor } from '../../domain/dedupe/dedupe-identity.js';
import { canonicalJson } from '../../domain/shared/canonical-json.js';
import { observe } from '../shared/observe.js';
import { metadataOf } from '../shared/command-context.js';
import { currentTrigger } from '../shared/lookups.js';
import { FireManualOccurrenceCommand, type ManualFireResult } from './fire-manual-occurrence.command.js';

/** OC-5: an occurrence is bounded evidence, not a dumping ground. */
export const MAX_MANUAL_INPUT_BYTES = 64 * 1024;

@CommandHandler(FireManualOccurrenceCommand)
export class FireManualOccurrenceHandler implements ICommandHandler<FireManualOccurrenceCommand> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({
    context,
    triggerId,
    idempotencyKey,
    input = null,
    resourceRefs,
  }: FireManualOccurrenceCommand): Promise<ManualFireResult> {
    if (Buffer.byteLength(canonicalJson(input ?? null)) > MAX_MANUAL_INPUT_BYTES) {
      throw badRequest('The input is too large.', [
        { pointer: '/input', message: `input exceeds ${MAX_MANUAL_INPUT_BYTES} bytes` },
      ]);
    }
    const trigger = await currentTrigger(this.store, context.tenant, triggerId);
    if (trigger.status === 'absent' || trigger.deleted) throw notFound();
    if (trigger.definition.type !== 'manual') {
      throw new CommandRejected(
        reject('trigger_not_manual', {
          detail: `Trigger ${triggerId} is a ${trigger.definition.type} Trigger; only manual Triggers take manual occurrences.`,
        }),
      );
    }
    const identity = manualIdentity(context.tenant, trigger, idempotencyKey);
    const observedAt = (await this.store.now()).toISOString();
    const observation = await observe(
      this.store,
      {
        occurrenceId: occurrenceIdFor(identity),
        tenant: context.tenant,
        triggerId,
        triggerRevision: trigger.revision,
        missionId: trigger.definition.missionId,
        kind: 'manual',
        auth: { state: 'internal', sourceId: null, keyId: null, keyGeneration: null },
        externalId: null,
        dedupeIdentity: identity,
        dedupeHash: dedupeIdentityHash(identity),
        payloadDigest: payloadDigest({ input: input ?? null, resourceRefs: resourceRefs ?? [] }),
        input: input ?? null,
        resourceRefs: resourceRefs ?? [],
        classification: trigger.definition.constraints.classification,
        scheduledAt: null,
        causal: { parentId: null, depth: 0, ancestry: [] },
        observedAt,
      },
      metadataOf(context),
    );
    // Whoever observed first fixed the payload; another payload under the identity starts nothing (OC-4).
    if (observation.outcome === 'payload_conflict') {
      throw new CommandRejected(
        reject('payload_conflict', { detail: 'This delivery identity was first accepted with a different payload.' }),
      );
    }
    return { occurrenceId: observation.occurrenceId, status: 'observed', position: observation.position };
  }
}
