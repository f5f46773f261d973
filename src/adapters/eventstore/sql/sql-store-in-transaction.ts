import type {
  AppendBatchOptions,
  EventStore,
  PreparedEvent,
  StoreInTransaction,
  StoreTransaction,
  StreamAppend,
  TransactionalAppendResult,
} from '../../../domain/ports/event-store.js';
import { WrongExpectedRevision } from '../../../domain/shared/errors.js';
import type { SqlExecutor } from '../../../projections/sql-client.js';
import {
  BatchConflict,
  collidedKey,
  insertContents,
  newStreamContents,
  positionKey,
  prepareBatch,
} from './sql-batch-append.js';

/** The events table lives in the caller's database, so the append and the caller's writes commit as one. */
export const inTransactionOf =
  (within: (tx: SqlExecutor) => Pick<EventStore, 'readStream'>) =>
  (transaction: StoreTransaction): StoreInTransaction => {
    const tx = transaction as SqlExecutor;
    let reads: Pick<EventStore, 'readStream'> | undefined;
    return {
      readStream: (streamId, options) => (reads ??= within(tx)).readStream(streamId, options),
      appendBatch: (batch, prepared = [], options = {}) => appendBatchWithin(tx, batch, prepared, options),
    };
  };

async function appendBatchWithin(
  tx: SqlExecutor,
  batch: readonly StreamAppend[],
  prepared: readonly PreparedEvent[],
  { inBatchOrder = false }: AppendBatchOptions,
): Promise<TransactionalAppendResult> {
  const { appended, contents } = prepareBatch(batch);
  const positions = new Map<string, number>();
  try {
    // New streams with their only event (Occurrences) as one flat INSERT, the rest chained: two statements at most.
    const { fresh, chained } = newStreamContents([...contents, ...prepared]);
    for (const [key, position] of await insertContents(tx, fresh, { keepOrder: inBatchOrder }))
      positions.set(key, position);
    for (const [key, position] of await insertContents(tx, chained)) positions.set(key, position);
  } catch (error) {
    if (!(error instanceof BatchConflict)) throw error;
    // The violation aborted the transaction, so nothing can be looked up: the violated key names a stream that moved.
    const streams = [...batch, ...prepared.map((p) => ({ streamId: p.streamId, expected: p.revision - 1 }))];
    const collided = collidedKey(error.cause);
    const moved = streams.find((s) => s.streamId === collided?.streamId) ?? streams[0]!;
    const expected = moved.expected === -1 ? 'no_stream' : moved.expected;
    throw new WrongExpectedRevision(moved.streamId, expected, collided?.revision ?? -1);
  }
  for (const events of appended)
    for (const e of events) e.position = positions.get(positionKey(e.streamId, e.revision)) ?? 0;
  return {
    streams: appended,
    prepared: prepared.map((p) => positions.get(positionKey(p.streamId, p.revision)) ?? 0),
  };
}
