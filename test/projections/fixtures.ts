import type { EventStore, NewEvent } from '../../src/domain/ports/event-store.js';
import type { ReasonCode } from '../../src/domain/admission/reasons.js';
import {
  dedupeIdentityHash,
  manualIdentity,
  occurrenceIdFor,
  scheduleIdentity,
  webhookIdentity,
} from '../../src/domain/dedupe/dedupe-identity.js';
import type {
  ObservedOccurrence,
  OccurrenceAdmitted,
  OccurrenceBlocked,
  OccurrenceSuppressed,
  DeliveryConflictRecorded,
  OccurrenceKind,
} from '../../src/domain/occurrence/occurrence-events.js';
import { definition } from '../../src/domain/occurrence/occurrence.fixtures.js';
import type { ExecutionEvent } from '../../src/domain/execution/index.js';
import { executionStream, occurrenceStream, triggerStream } from '../../src/domain/shared/ids.js';
import type { TriggerDefinition } from '../../src/domain/trigger/trigger-definition.js';
import type { TriggerDeleted, TriggerRevised } from '../../src/domain/trigger/trigger.js';

/** Events in the exact shapes the deciders produce, written straight to the store. */
const meta = (tenant: string) => ({ tenant, actor: 'svc-test', correlationId: 'c-1' });

export const scheduleDefinition = (over: Partial<TriggerDefinition> = {}): TriggerDefinition =>
  definition({
    type: 'schedule',
    source: null,
    schedule: {
      engine: 'cron@1',
      expression: '30 2 * * *',
      timezone: 'Europe/Berlin',
      start: null,
      end: null,
      dst: { nonexistent: 'shift_forward', ambiguous: 'earlier' },
      missed: { policy: 'skip', graceSeconds: 60 },
    },
    dedupe: {
      strategy: 'schedule-instant@1',
      keyPointer: null,
      subjectPointer: null,
      windowSeconds: 604_800,
      onRevision: 'retain',
    },
    ...over,
  });

export function triggerRevised(
  tenant: string,
  triggerId: string,
  revision: number,
  def: TriggerDefinition = definition(),
): NewEvent {
  const data: TriggerRevised['data'] = {
    tenant,
    triggerId,
    revision,
    definition: def,
    dedupeEpoch: 1,
    reason: 'test',
    actor: 'svc-test',
    at: '2026-03-01T09:00:00.000Z',
    ...(def.type === 'schedule' ? { pins: { tzdataVersion: '2025b' } } : {}),
  };
  return { type: 'TriggerRevised', data, metadata: meta(tenant) };
}

export function triggerDeleted(tenant: string, triggerId: string, revision: number): NewEvent {
  const data: TriggerDeleted['data'] = {
    tenant,
    triggerId,
    revision,
    reason: 'test',
    actor: 'svc-test',
    at: '2026-03-01T09:30:00.000Z',
  };
  return { type: 'TriggerDeleted', data, metadata: meta(tenant) };
}

export interface OccurrenceSpec {
  tenant?: string;
  triggerId?: string;
  key: string;
  kind?: OccurrenceKind;
  observedAt: string;
  triggerRevision?: number;
  missionId?: string;
}

export function occurrence(spec: OccurrenceSpec): ObservedOccurrence {
  const { tenant = 'acme', triggerId = 't-1', key, kind = 'webhook', observedAt } = spec;
  const scope = { triggerId, dedupeEpoch: 1, definition: { dedupe: { strategy: 'delivery-id@1' as const } } };
  const identity =
    kind === 'schedule'
      ? scheduleIdentity(tenant, scope, 1, key)
      : kind === 'manual'
        ? manualIdentity(tenant, scope, key)
        : webhookIdentity(tenant, scope, 'gh', key, null);
  return {
    occurrenceId: occurrenceIdFor(identity),
    tenant,
    triggerId,
    triggerRevision: spec.triggerRevision ?? 1,
    missionId: spec.missionId ?? 'm-1',
    kind,
    auth:
      kind === 'webhook' ? { state: 'verified', sourceId: 'gh', keyId: 'k1', keyGeneration: 1 } : { state: 'internal' },
    externalId: kind === 'webhook' ? key : null,
    dedupeIdentity: identity,
    dedupeHash: dedupeIdentityHash(identity),
    payloadDigest: `digest-${key}`,
    input: { secretish: 'the body is never projected', action: 'opened' },
    resourceRefs: ['repo:acme/api'],
    classification: 'internal',
    scheduledAt: kind === 'schedule' ? key : null,
    causal: { parentId: null, depth: 0, ancestry: [] },
    observedAt,
  };
}

export const observedEvent = (o: ObservedOccurrence): NewEvent => ({
  type: 'OccurrenceObserved',
  data: o,
  metadata: meta(o.tenant),
});

export function admittedEvent(o: ObservedOccurrence, executionId: string, firedAt: string): NewEvent {
  const { tenant, missionId, triggerId, triggerRevision, occurrenceId, input, resourceRefs, scheduledAt } = o;
  const request = {
    executionId,
    tenant,
    missionId,
    triggerId,
    triggerRevision,
    occurrenceId,
    input,
    resourceRefs,
    lane: 'default',
    scheduledAt,
    firedAt,
    limits: { maxConcurrent: 1, maxExecutionsPerHour: 10 },
  };
  const data: OccurrenceAdmitted['data'] = { occurrenceId, executionId, firedAt, request, decidedAt: firedAt };
  return { type: 'OccurrenceAdmitted', data, metadata: meta(tenant) };
}

export function blockedEvent(
  o: ObservedOccurrence,
  reason: ReasonCode,
  evidence: Record<string, unknown>,
  decidedAt = o.observedAt,
): NewEvent {
  const data: OccurrenceBlocked['data'] = { occurrenceId: o.occurrenceId, reason, evidence, decidedAt };
  return { type: 'OccurrenceBlocked', data, metadata: meta(o.tenant) };
}

/** BA-2/AD-4: decided without starting anything (a guard false, a prefilter terminating). */
export function suppressedEvent(
  o: ObservedOccurrence,
  reason: ReasonCode,
  evidence: Record<string, unknown>,
  decidedAt = o.observedAt,
): NewEvent {
  const data: OccurrenceSuppressed['data'] = { occurrenceId: o.occurrenceId, reason, evidence, decidedAt };
  return { type: 'OccurrenceSuppressed', data, metadata: meta(o.tenant) };
}

export function conflictEvent(o: ObservedOccurrence, digest: string, at: string): NewEvent {
  const data: DeliveryConflictRecorded['data'] = { occurrenceId: o.occurrenceId, conflictingDigest: digest, at };
  return { type: 'DeliveryConflictRecorded', data, metadata: meta(o.tenant) };
}

export const appendTrigger = (store: EventStore, tenant: string, triggerId: string, events: NewEvent[]) =>
  store.append(triggerStream(tenant, triggerId), events, 'any');

/** The Occurrence stream as the handlers write it: Observed first ("no stream"), then later facts. */
export async function appendOccurrence(
  store: EventStore,
  o: ObservedOccurrence,
  ...later: NewEvent[]
): Promise<number> {
  const stream = occurrenceStream(o.dedupeHash);
  let { position } = await store.append(stream, [observedEvent(o)], 'no_stream');
  for (const event of later) ({ position } = await store.append(stream, [event], 'stream_exists'));
  return position;
}

/** A lifecycle event on an execution's stream (its request is the Occurrence's admission). */
export async function appendExecutionEvent(store: EventStore, tenant: string, event: ExecutionEvent): Promise<number> {
  return (await store.append(executionStream(event.data.executionId), [{ ...event, metadata: meta(tenant) }], 'any'))
    .position;
}
