import { type EventMetadata, type EventStore } from '../../domain/ports/event-store.js';
import { WrongExpectedRevision } from '../../domain/shared/errors.js';
import { isRejection } from '../../domain/shared/result.js';
import type { ObservedOccurrence } from '../../domain/occurrence/occurrence-events.js';
import { classifyDelivery, occurrenceDecider, useOf } from '../../domain/occurrence/occurrence.js';
import { observedAtGeneration } from '../../domain/occurrence/observed-occurrence.js';
import { reusable } from '../../domain/dedupe/dedupe-window.js';
import { occurrenceStream } from '../../domain/shared/ids.js';
import { loadAggregate, toNewEvent } from './aggregate.js';
import { latestGeneration } from './dedupe-generations.js';
import { appendAll, handleCommand } from './write-kernel.js';

export interface Observation {
  occurrenceId: string;
  outcome: 'observed' | 'duplicate' | 'payload_conflict';
  position: number;
}

/** DD-4: how long a decided Occurrence keeps its identity; absent, identities are kept for good (manual, schedule). */
export interface DedupeWindow {
  retentionSeconds: number;
}

/** Racers that each lose the start of the next generation look again; more than this is a fault, not a race. */
const MAX_GENERATION_RACES = 8;

/**
 * OC-3: the Occurrence is appended at "no stream" on the stream its identity names; whoever wins the
 * race fixed the payload, and every later delivery of the identity resolves against it. With a dedupe
 * window (DD-4) a later delivery resolves against the identity's latest use instead, and starts the next
 * use — a new Occurrence on a stream of its own, again at "no stream" (DD-3) — once that one is decided and
 * its window has passed by the database clock (`observedAt`).
 */
export async function observe(
  store: EventStore,
  observed: ObservedOccurrence,
  metadata: EventMetadata,
  window?: DedupeWindow,
): Promise<Observation> {
  // Most deliveries are new: append at "no stream" straight away and read only when someone was first.
  const first = await observeFirst(store, observed, metadata);
  if (first) return first;
  if (!window) return resolveAgainst(store, observed, metadata);
  for (let race = 0; race < MAX_GENERATION_RACES; race++) {
    const latest = observedAtGeneration(observed, await latestGeneration(store, observed));
    const loaded = await loadAggregate(store, occurrenceStream(latest.dedupeHash), occurrenceDecider);
    if (!reusable(useOf(loaded.state), observed.observedAt, window.retentionSeconds)) {
      // Within the window: the same payload is a duplicate (nothing to write), another one a recorded conflict.
      if (loaded.state.status !== 'absent' && classifyDelivery(loaded.state, observed.payloadDigest) === 'duplicate')
        return { occurrenceId: loaded.state.occurrence.occurrenceId, outcome: 'duplicate', position: loaded.position };
      return resolveAgainst(store, latest, metadata);
    }
    const next = observedAtGeneration(observed, (latest.dedupeIdentity.generation ?? 0) + 1);
    const started = await observeFirst(store, next, metadata);
    if (started) return started;
    // Another delivery started that generation first: it is the latest now, resolve against it.
  }
  throw new Error('the next generation of a dedupe identity stayed contended');
}

/** The identity's first delivery at this generation, or null when its stream already exists. */
async function observeFirst(
  store: EventStore,
  observed: ObservedOccurrence,
  metadata: EventMetadata,
): Promise<Observation | null> {
  const first = occurrenceDecider.decide({ type: 'ObserveOccurrence', ...observed }, occurrenceDecider.initialState);
  if (isRejection(first)) return null;
  try {
    const events = first.map((e) => toNewEvent(e, metadata));
    const stream = occurrenceStream(observed.dedupeHash);
    const [position] = await appendAll(store, [{ streamId: stream, events, expected: 'no_stream' }]);
    return { occurrenceId: observed.occurrenceId, outcome: 'observed', position: position! };
  } catch (error) {
    // Someone observed this identity first: the caller decides on what they wrote.
    if (!(error instanceof WrongExpectedRevision)) throw error;
    return null;
  }
}

/** Decide on what the first delivery wrote, through the retrying path (a conflict is recorded, OC-4). */
async function resolveAgainst(
  store: EventStore,
  observed: ObservedOccurrence,
  metadata: EventMetadata,
): Promise<Observation> {
  const handled = await handleCommand(
    store,
    occurrenceStream(observed.dedupeHash),
    occurrenceDecider,
    { type: 'ObserveOccurrence', ...observed },
    metadata,
  );
  if (handled.state.status === 'absent') throw new Error('occurrence stream empty after observe');
  const occurrenceId = handled.state.occurrence.occurrenceId;
  const created = handled.events[0]?.type === 'OccurrenceObserved';
  const outcome = created
    ? 'observed'
    : classifyDelivery(handled.state, observed.payloadDigest) === 'payload_conflict'
      ? 'payload_conflict'
      : 'duplicate';
  return { occurrenceId, outcome, position: handled.position };
}
