import { advanceDelivery } from '../../commands/delivery-timers/advance-delivery.js';
import type { ExecutionEvent } from '../../domain/execution/index.js';
import type { EventStore } from '../../domain/ports/event-store.js';
import { dueDeliveries, msUntilNextDue } from '../../projections/pending-executions/pending-executions.queries.js';
import type { SqlExecutor } from '../../projections/sql-client.js';
import { eachConcurrently, idleUntil, TimedLoop } from '../runner/timed-loop.js';

export const DELIVERY_TIMERS = 'timers:delivery';

export interface DeliveryTimersOptions {
  store: EventStore;
  sql: SqlExecutor;
  /** The longest sleep between two looks (REVEILLE_DELIVERY_POLL_MS): new timers and freed slots are seen by then. */
  maxIdleMs: number;
  /** Executions advanced side by side in one pass. */
  concurrency?: number;
  onAdvanced?: (executionId: string, events: readonly ExecutionEvent[]) => void;
  onError?: (error: unknown) => void;
}

const DUE_PER_ROUND = 200;
const MAX_ROUNDS = 50;
/** Folds come in bursts under load: a poke is answered after this long, so a burst costs one look. */
const POKE_DELAY_MS = 100;
const DEFAULT_CONCURRENCY = 4;

/**
 * EX-4 by the database clock (SC-6): finds due retries and unclaimed deliveries in the pending-executions read
 * model and fires each one's AdvanceDelivery, then sleeps until the next timer the read model knows of (capped),
 * or until `poke()` says the read model changed. The timers are the log's, not this process's: a restart, or
 * another process running the same loop, finds them in the same rows; a double fire appends nothing.
 */
export class DeliveryTimers extends TimedLoop {
  readonly name = DELIVERY_TIMERS;

  constructor(private readonly options: DeliveryTimersOptions) {
    super(options.onError, POKE_DELAY_MS);
  }

  /** One pass over what is due now; returns how many executions it moved. */
  async runOnce(): Promise<number> {
    let advanced = 0;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const due = await dueDeliveries(this.options.sql, DUE_PER_ROUND);
      let moved = 0;
      // One execution the log refuses to move must not hold back the others.
      await eachConcurrently(due, this.options.concurrency ?? DEFAULT_CONCURRENCY, async (next) => {
        const events = await advanceDelivery(this.options.store, next.tenant, next.executionId);
        if (events.length === 0) return;
        moved++;
        this.options.onAdvanced?.(next.executionId, events);
      });
      advanced += moved;
      // Rows the read model has not folded yet look due again: only a full round that moved something goes on.
      if (moved === 0 || moved + due.length < DUE_PER_ROUND) break;
    }
    return advanced;
  }

  /** The read model changed (a new timer, a freed slot): look again now instead of at the end of the sleep. */
  poke(): void {
    this.nudge();
  }

  /** Until the next timer by the database clock. */
  protected async idleFor(): Promise<number> {
    return idleUntil(await msUntilNextDue(this.options.sql), this.options.maxIdleMs);
  }
}
