import { timeOutSubscription } from '../../commands/subscription-timers/time-out-subscription.js';
import type { EventStore } from '../../domain/ports/event-store.js';
import { dueSubscriptions, msUntilNextDeadline } from '../../projections/subscriptions/subscriptions.queries.js';
import type { SqlExecutor } from '../../projections/sql-client.js';
import { eachConcurrently, idleUntil, TimedLoop } from '../runner/timed-loop.js';

export const SUBSCRIPTION_TIMERS = 'timers:subscriptions';

const DUE_PER_ROUND = 200;
const MAX_ROUNDS = 20;
const CONCURRENCY = 4;
/** A burst of registrations costs one look. */
const POKE_DELAY_MS = 100;

/**
 * SU-1 deadlines by the database clock (SC-6): finds active subscriptions past their deadline in the
 * `subscriptions` read model and times each out on its `waitfor-…` stream, then sleeps until the next deadline
 * (capped). The deadlines live in the log and its read model, so a restart finds them again.
 */
export class SubscriptionTimers extends TimedLoop {
  readonly name = SUBSCRIPTION_TIMERS;

  constructor(
    private readonly options: {
      store: EventStore;
      sql: SqlExecutor;
      maxIdleMs: number;
      onError?: (error: unknown) => void;
    },
  ) {
    super(options.onError, POKE_DELAY_MS);
  }

  async runOnce(): Promise<number> {
    let resolved = 0;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const due = await dueSubscriptions(this.options.sql, DUE_PER_ROUND);
      let moved = 0;
      await eachConcurrently(due, CONCURRENCY, async (next) => {
        if ((await timeOutSubscription(this.options.store, next)).length > 0) moved++;
      });
      resolved += moved;
      // Rows not folded yet look due again: only a full round that moved something goes on.
      if (moved === 0 || due.length < DUE_PER_ROUND) break;
    }
    return resolved;
  }

  poke(): void {
    this.nudge();
  }

  protected async idleFor(): Promise<number> {
    return idleUntil(await msUntilNextDeadline(this.options.sql), this.options.maxIdleMs);
  }
}
