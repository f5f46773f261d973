import { type EventMetadata, type EventStore } from '../../domain/ports/event-store.js';
import { WrongExpectedRevision } from '../../domain/shared/errors.js';
import { isRejection } from '../../domain/shared/result.js';
import type { ObservedOccurrence } from '../../domain/occurrence/occurrence-events.js';
import { classifyDelivery, occurrenceDecider } from '../../domain/occurrence/occurrence.js';
import { occurrenceStream } from '../../domain/shared/ids.js';
import { toNewEvent } from './aggregate.js';
import { appendAll, handleCommand } from './write-kernel.js';

export interface Observation {
  occurrenceId: string;
  outcome: 'observed' | 'duplicate' | 'payload_conflict';
  position: number;
}

/**
 * OC-3: the Occurrence is appended at "no stream" on the stream its identity names; whoever wins the
 * race fixed the payload, and every later delivery of the identity resolves against it.
 */
export async function observe(
  store: EventStore,
  observed: ObservedOccurrence,
  metadata: EventMetadata,
): Promise<Observation> {
  const stream = occurrenceStream(observed.dedupeHash);
  // Most deliveries are new: append at "no stream" straight away and read only when someone was first.
  const first = occurrenceDecider.decide({ type: 'ObserveOccurrence', ...observed }, occurrenceDecider.initialState);
  if (!isRejection(first)) {
    try {
      const events = first.map((e) => toNewEvent(e, metadata));
      const [position] = await appendAll(store, [{ streamId: stream, events, expected: 'no_stream' }]);
      return { occurrenceId: observed.occurrenceId, outcome: 'observed', position: position! };
    } catch (error) {
      // Someone observed this identity first: decide on what they wrote, through the retrying path.
      if (!(error instanceof WrongExpectedRevision)) throw error;
    }
  }
  const handled = await handleCommand(
    store,
    stream,
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
