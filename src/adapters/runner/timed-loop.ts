import type { BackgroundTask } from './subscription-registry.js';

const MIN_IDLE_MS = 20;
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;

/**
 * A background loop driven by the database clock (SC-6): a pass over what is due, then a sleep until the next
 * due time the store knows of (`idleFor`), doubling backoff after a failed pass. Any number of processes may run
 * the same loop: what is due lives in the store, never in this object.
 */
export abstract class TimedLoop implements BackgroundTask {
  abstract readonly name: string;
  private running = false;
  private loop: Promise<void> | null = null;
  private lastError: unknown = null;
  private passes = 0;
  private nudged = false;
  private waker: ((reason: 'stop' | 'nudge') => void) | null = null;

  /**
   * @param nudgeDelayMs a nudge ends the sleep after this long rather than at once, so a burst of nudges costs
   *   one pass
   */
  protected constructor(
    private readonly onLoopError?: (error: unknown) => void,
    private readonly nudgeDelayMs = 0,
  ) {}

  /** One pass over what is due now; answers how much it moved. */
  abstract runOnce(): Promise<number>;

  /** How long to sleep after a good pass. */
  protected abstract idleFor(): Promise<number>;

  get error(): unknown {
    return this.lastError;
  }

  /** Started, and no pass has ended yet, failed or not (readiness, OP-4). */
  get starting(): boolean {
    return this.running && this.passes === 0;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.waker?.('stop');
    await this.loop;
    this.loop = null;
  }

  /** What is due changed: look again soon. A nudge during a pass is not lost (the sleep after it is short). */
  protected nudge(): void {
    this.nudged = true;
    this.waker?.('nudge');
  }

  private async run(): Promise<void> {
    let backoff = FIRST_BACKOFF_MS;
    while (this.running) {
      try {
        this.nudged = false;
        await this.runOnce();
        this.passes++;
        this.lastError = null;
        backoff = FIRST_BACKOFF_MS;
        await this.pause(await this.idleFor(), true);
      } catch (error) {
        this.passes++;
        this.lastError = error;
        this.onLoopError?.(error);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
        // Not nudgeable: a burst of nudges must not undo the backoff.
        await this.pause(backoff, false);
      }
    }
  }

  private pause(ms: number, nudgeable: boolean): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.waker = null;
        resolve();
      };
      const timer = setTimeout(finish, nudgeable && this.nudged ? Math.min(ms, this.nudgeDelayMs) : ms);
      timer.unref?.();
      this.waker = (reason) => {
        // Stop does not wait; a nudge does, a little, unless due sooner.
        if (reason === 'stop') return finish();
        if (!nudgeable) return;
        clearTimeout(timer);
        this.waker = null;
        setTimeout(resolve, Math.min(ms, this.nudgeDelayMs)).unref?.();
      };
    });
  }
}

/** Until `nextMs` (null: nothing known due), within [MIN_IDLE_MS, maxIdleMs]. */
export function idleUntil(nextMs: number | null, maxIdleMs: number): number {
  return nextMs === null ? maxIdleMs : Math.min(maxIdleMs, Math.max(MIN_IDLE_MS, Math.ceil(nextMs)));
}

/**
 * `work` on every item with at most `concurrency` at once. One failing item must not hold back the others: the
 * rest are still worked, and a failure is thrown once all are done.
 */
export async function eachConcurrently<T>(
  items: T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let failure: { error: unknown } | null = null;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let next = items.shift(); next !== undefined; next = items.shift()) {
        try {
          await work(next);
        } catch (error) {
          failure = { error };
        }
      }
    }),
  );
  if (failure) throw (failure as { error: unknown }).error;
}
