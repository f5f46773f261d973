import { advanceDelivery } from '../../commands/delivery-timers/advance-delivery.js';
import type { ExecutionEvent } from '../../domain/execution/index.js';
import type { EventStore } from '../../domain/ports/event-store.js';
import { dueDeliveries, msUntilNextDue } from '../../projections/pending-executions/pending-executions.queries.js';
import type { SqlExecutor } from '../../projections/sql-client.js';
import type { BackgroundTask } from '../runner/subscription-registry.js';

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
const MIN_IDLE_MS = 20;
/** Folds come in bursts under load: a poke is answered after this long, so a burst costs one look. */
const POKE_DELAY_MS = 100;
const DEFAULT_CONCURRENCY = 4;

/**
 * EX-4 by the database clock (SC-6): finds due retries and unclaimed deliveries in the pending-executions read
 * model and fires each one's AdvanceDelivery, then sleeps until the next timer the read model knows of (capped),
 * or until `poke()` says the read model changed. The timers are the log's, not this process's: a restart, or
 * another process running the same loop, finds them in the same rows; a double fire appends nothing.
 */
export class DeliveryTimers implements BackgroundTask {
  readonly name = DELIVERY_TIMERS;
  private running = false;
  private loop: Promise<void> | null = null;
  private lastError: unknown = null;
  private passes = 0;
  private wake: (() => void) | null = null;
  private poked = false;

  constructor(private readonly options: DeliveryTimersOptions) {}

  get error(): unknown {
    return this.lastError;
  }

  /** Started, and no pass has ended yet, failed or not (readiness, OP-4). */
  get starting(): boolean {
    return this.running && this.passes === 0;
  }

  /** One pass over what is due now; returns how many executions it moved. */
  async runOnce(): Promise<number> {
    let advanced = 0;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const due = await dueDeliveries(this.options.sql, DUE_PER_ROUND);
      let moved = 0;
      let failure: unknown = null;
      const workers = Array.from({ length: this.options.concurrency ?? DEFAULT_CONCURRENCY }, async () => {
        for (let next = due.shift(); next; next = due.shift()) {
          try {
            const events = await advanceDelivery(this.options.store, next.tenant, next.executionId);
            if (events.length === 0) continue;
            moved++;
            this.options.onAdvanced?.(next.executionId, events);
          } catch (error) {
            // One execution the log refuses to move must not hold back the others.
            failure = error;
          }
        }
      });
      await Promise.all(workers);
      advanced += moved;
      if (failure) throw failure;
      // Rows the read model has not folded yet look due again: only a full round that moved something goes on.
      if (moved === 0 || moved + due.length < DUE_PER_ROUND) break;
    }
    return advanced;
  }

  /** The read model changed (a new timer, a freed slot): look again now instead of at the end of the sleep. */
  poke(): void {
    this.poked = true;
    this.wake?.();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = null;
  }

  private async run(): Promise<void> {
    let backoff = 100;
    while (this.running) {
      try {
        this.poked = false;
        await this.runOnce();
        this.passes++;
        this.lastError = null;
        backoff = 100;
        await this.pause(await this.idleFor());
      } catch (error) {
        this.passes++;
        this.lastError = error;
        this.options.onError?.(error);
        backoff = Math.min(backoff * 2, 5_000);
        await this.pause(backoff, false);
      }
    }
  }

  /** Until the next timer by the database clock, within [MIN_IDLE_MS, maxIdleMs]. */
  private async idleFor(): Promise<number> {
    const next = await msUntilNextDue(this.options.sql);
    const { maxIdleMs } = this.options;
    return next === null ? maxIdleMs : Math.min(maxIdleMs, Math.max(MIN_IDLE_MS, Math.ceil(next)));
  }

  /** `pokeable`: false after a failure, so a burst of folds does not undo the backoff. */
  private pause(ms: number, pokeable = true): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      // A poke during the pass is not lost: the pause after it is a short one.
      const timer = setTimeout(finish, pokeable && this.poked ? Math.min(ms, POKE_DELAY_MS) : ms);
      timer.unref?.();
      this.wake = () => {
        // Stop does not wait; a poke does, a little (so a burst of folds costs one look), unless due sooner.
        if (!this.running) return finish();
        if (!pokeable) return;
        clearTimeout(timer);
        this.wake = null;
        setTimeout(resolve, Math.min(ms, POKE_DELAY_MS)).unref?.();
      };
    });
  }
}
