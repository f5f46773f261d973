import type { BatchAppender } from '../../commands/shared/write-kernel.js';
import type { EventStore, StreamAppend } from '../../domain/ports/event-store.js';
import type { AppendSignal } from '../../projections/runner/append-signal.js';
import type { SqlClient } from '../../projections/sql-client.js';
import { WrongExpectedRevision } from '../../domain/shared/errors.js';
import { isDeadlock } from '../scheduler/schedule-writer.js';

/**
 * PO-2/PO-3: a poll's appends in one transaction, the Occurrences in the page's order (a multi-stream batch is
 * otherwise written in stream-id order, which is no order at all for a page): one INSERT for the new Occurrence
 * streams in batch order, one for the poll event, instead of a statement per stream. A conflict rolls the whole
 * poll back. EventStoreDB has no such transaction: the Occurrences go first and the poll
 * event last, so a crash in between leaves Occurrences the refetch finds as duplicates, never a second run.
 */
export function orderedAppends(store: EventStore, sql: SqlClient, signal?: AppendSignal): BatchAppender {
  const inTransaction = store.inTransaction?.bind(store);
  if (!inTransaction)
    return async (batch) => {
      const positions: number[] = [];
      for (const { streamId, events, expected } of batch)
        positions.push((await store.append(streamId, events, expected)).position);
      return positions;
    };
  return async (batch: readonly StreamAppend[]) => {
    const positions = await sql
      .transaction(async (tx) => {
        const { streams } = await inTransaction(tx).appendBatch(batch, [], { inBatchOrder: true });
        return streams.map((events) => events[events.length - 1]?.position ?? 0);
      })
      .catch((error: unknown) => {
        // Two pollers whose leases overlapped, writing item streams in different orders: a lost race, retried.
        const last = batch[batch.length - 1];
        if (last && isDeadlock(error)) throw new WrongExpectedRevision(last.streamId, last.expected, -1);
        throw error;
      });
    // Nothing was signalled inside the transaction: the subscriptions learn of it once it committed.
    signal?.notify(batch.flatMap((append) => append.events.map((e) => e.type)));
    return positions;
  };
}
