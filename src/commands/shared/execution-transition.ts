import type { EventMetadata, EventStore, StreamAppend } from '../../domain/ports/event-store.js';
import { notFound } from '../../domain/shared/errors.js';
import { overlapDecider } from '../../domain/admission/index.js';
import {
  decideExecution,
  evolveExecution,
  type ExecutionCommand,
  executionDeciderFor,
  type ExecutionEvent,
  type KnownExecution,
  occurrenceIdOf,
  type OverlapEndReason,
  overlapChange,
  slotChange,
} from '../../domain/execution/index.js';
import { claimLimits, type ClaimLimits } from '../../domain/execution/claim-limits.js';
import type { OccurrenceAdmitted } from '../../domain/occurrence/occurrence-events.js';
import { executionStream, occurrenceStream, overlapStream } from '../../domain/shared/ids.js';
import { endStripeLeases, slotRelease, slotTake } from './mission-slots.js';
import { asDomainEvent, type Loaded, loadLatest } from './aggregate.js';
import { accepted, appendOf, write } from './write-kernel.js';

export type { KnownExecution };

/** The request's fields a consumer or an operator sees (never the tenant: the caller's own). */
const VISIBLE_REQUEST_FIELDS = [
  'occurrenceId',
  'triggerId',
  'triggerRevision',
  'missionId',
  'lane',
  'scheduledAt',
  'firedAt',
  'input',
  'resourceRefs',
] as const;

type ExecutionRequest = KnownExecution['request'];
type RequestView = Pick<ExecutionRequest, (typeof VISIBLE_REQUEST_FIELDS)[number]> & { limits: ClaimLimits };

/** EX-5: `limits` is the delivery policy's runtime/budget; the Mission's slot limits (`request.limits`) stay internal. */
export function requestView(request: ExecutionRequest): RequestView {
  const fields = Object.fromEntries(VISIBLE_REQUEST_FIELDS.map((field) => [field, request[field]]));
  return { ...fields, limits: claimLimits(request.delivery) } as RequestView;
}

/** One round trip where the store reads several streams together: every claim and completion loads both. */
function readBoth(store: EventStore, first: string, second: string) {
  if (store.readStreams)
    return store.readStreams([
      { streamId: first, fromRevision: 0 },
      { streamId: second, fromRevision: 0 },
    ]);
  return Promise.all([store.readStream(first), store.readStream(second)]);
}

/** Another tenant's execution does not exist for the caller. */
export async function loadExecution(
  store: EventStore,
  tenant: string,
  executionId: string,
): Promise<Loaded<KnownExecution>> {
  const occurrenceId = occurrenceIdOf(executionId);
  if (occurrenceId === null) throw notFound('No such execution.');
  const [occurrence = [], lifecycle = []] = await readBoth(
    store,
    occurrenceStream(occurrenceId),
    executionStream(executionId),
  );
  const admitted = occurrence.find(
    (e) => e.type === 'OccurrenceAdmitted' && (e.data as OccurrenceAdmitted['data']).executionId === executionId,
  );
  const request = (admitted?.data as OccurrenceAdmitted['data'] | undefined)?.request;
  if (!admitted || !request || request.tenant !== tenant) throw notFound('No such execution.');
  const decider = executionDeciderFor(request, (admitted.data as OccurrenceAdmitted['data']).decidedAt);
  const last = lifecycle[lifecycle.length - 1];
  return {
    state: lifecycle.reduce(
      (state, e) => decider.evolve(state, asDomainEvent<ExecutionEvent>(e)),
      decider.initialState,
    ) as KnownExecution,
    revision: last?.revision ?? -1,
    position: last?.position ?? admitted.position,
  };
}

/**
 * EX-2/EX-3, AD-2: a claim takes the Mission's slot and the end of an attempt gives it back, each in the same
 * all-or-nothing append as the execution event, compared-and-set on the slot stream's revision: two claims
 * racing for the last slot conflict, and the retry decides `concurrency_limit` from the fresh count.
 * BA-3: a terminal transition ends the Trigger's overlap marker in the same append; a recovery takes it back.
 */
export function transitionExecution(
  store: EventStore,
  tenant: string,
  command: ExecutionCommand,
  metadata: EventMetadata,
): Promise<{ state: KnownExecution; events: ExecutionEvent[]; position: number }> {
  const leases: string[] = [];
  return write(store, async () => {
    endStripeLeases(leases);
    const loaded = await loadExecution(store, tenant, command.executionId);
    const events = accepted(decideExecution(command, loaded.state));
    const after = events.reduce(evolveExecution, loaded.state);
    const appends: StreamAppend[] = [];
    if (events.length > 0) appends.push(appendOf(executionStream(command.executionId), events, metadata, loaded));
    const { request } = loaded.state;
    const slot = slotChange(loaded.state, after);
    if (slot && 'take' in slot) appends.push(await slotTake(store, request, command.at, metadata, leases));
    if (slot && 'release' in slot)
      appends.push(await slotRelease(store, request, slot.release, command.at, metadata, leases));
    const overlap = overlapChange(loaded.state, after);
    if (overlap) appends.push(...(await overlapMove(store, after, overlap, command.at, metadata)));
    return {
      appends,
      answer: ([position]) => ({ state: after, events, position: position ?? loaded.position }),
    };
  }).finally(() => endStripeLeases(leases));
}

/**
 * Empty when the marker names another execution: an end never frees the Trigger for another's overlap, and a
 * recovery does not take the marker from an execution that runs now (BA-3 guards admissions, not operators).
 */
async function overlapMove(
  store: EventStore,
  state: KnownExecution,
  change: { start: true } | { end: OverlapEndReason },
  at: string,
  metadata: EventMetadata,
): Promise<StreamAppend[]> {
  const { tenant, triggerId, executionId } = state.request;
  const streamId = overlapStream(tenant, triggerId);
  const marker = await loadLatest(store, streamId, overlapDecider);
  const decided = overlapDecider.decide(
    'end' in change
      ? { type: 'EndTriggerExecution', tenant, triggerId, executionId, why: change.end, at }
      : { type: 'StartTriggerExecution', tenant, triggerId, executionId, at },
    marker.state,
  );
  if (!Array.isArray(decided) || decided.length === 0) return [];
  return [appendOf(streamId, decided, metadata, marker)];
}
