import { type BatchCloseResult, closeDueBatch } from '../../commands/admit-occurrence/close-batch.js';
import type { EventStore } from '../../domain/ports/event-store.js';
import { dueBatches, msUntilNextBatchDeadline } from '../../projections/batches/batches.queries.js';
import type { SqlExecutor } from '../../projections/sql-client.js';
import { eachConcurrently, idleUntil, TimedLoop } from '../runner/timed-loop.js';

export const BATCH_CLOSER = 'timers:batches';

export interface BatchCloserOptions {
  store: EventStore;
  sql: SqlExecutor;
  /** The longest sleep between two looks: a batch opened meanwhile is seen by then, or sooner when poked. */
  maxIdleMs: number;
  concurrency?: number;
  onClosed?: (result: BatchCloseResult) => void;
  onError?: (error: unknown) => void;
}

const DUE_PER_ROUND = 100;
const MAX_ROUNDS = 20;
const POKE_DELAY_MS = 50;
const DEFAULT_CONCURRENCY = 4;

/**
 * BA-1 by the database clock (SC-6): closes the open batches whose deadline passed (`rm_open_batches`), then sleeps
 * until the next deadline. The deadlines are the log's, so a restart finds them again; several processes may run
 * this loop: each close is a compare-and-set on the partition stream, so one of them closes a batch, once.
 */
export class BatchCloser extends TimedLoop {
  readonly name = BATCH_CLOSER;

  constructor(private readonly options: BatchCloserOptions) {
    super(options.onError, POKE_DELAY_MS);
  }

  async runOnce(): Promise<number> {
    let closed = 0;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const due = await dueBatches(this.options.sql, DUE_PER_ROUND);
      let moved = 0;
      await eachConcurrently(due, this.options.concurrency ?? DEFAULT_CONCURRENCY, async (streamId) => {
        const result = await closeDueBatch(this.options.store, streamId);
        if (!result.closed) return;
        moved++;
        this.options.onClosed?.(result);
      });
      closed += moved;
      // A closed batch's row stays until the read model folds it: only a full round that moved something goes on.
      if (moved === 0 || due.length < DUE_PER_ROUND) break;
    }
    return closed;
  }

  /** A batch opened (a new deadline): look again. */
  poke(): void {
    this.nudge();
  }

  protected async idleFor(): Promise<number> {
    return idleUntil(await msUntilNextBatchDeadline(this.options.sql), this.options.maxIdleMs);
  }
}
