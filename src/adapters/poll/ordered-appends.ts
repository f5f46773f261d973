import type { BatchAppender } from '../../commands/shared/write-kernel.js';
import type { EventStore } from '../../domain/ports/event-store.js';
import { WrongExpectedRevision } from '../../domain/shared/errors.js';
import { isDeadlock } from '../scheduler/schedule-writer.js';

/**
 * PO-2/PO-3: a poll's appends all or nothing, in the page's order (a multi-stream batch is otherwise written in
 * stream-id order, which is no order at all for a page): on the SQL stores one statement writes the new
 * Occurrence streams in batch order and the poll event last. A conflict writes nothing. EventStoreDB has no such
 * batch: the Occurrences go first and the poll event last, so a crash in between leaves Occurrences the refetch
 * finds as duplicates, never a second run.
 */
export function orderedAppends(store: EventStore): BatchAppender {
  const appendStreams = store.appendStreams?.bind(store);
  if (!appendStreams)
    return async (batch) => {
      const positions: number[] = [];
      for (const { streamId, events, expected } of batch)
        positions.push((await store.append(streamId, events, expected)).position);
      return positions;
    };
  // The store signals the append once it committed.
  return (batch) =>
    appendStreams(batch, { inBatchOrder: true }).catch((error: unknown) => {
      // Two pollers whose leases overlapped, writing item streams in different orders: a lost race, retried.
      const last = batch[batch.length - 1];
      if (last && isDeadlock(error)) throw new WrongExpectedRevision(last.streamId, last.expected, -1);
      throw error;
    });
}
