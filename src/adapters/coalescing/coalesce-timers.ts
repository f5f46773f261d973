import type { DueGroup } from '../../projections/coalescing/coalescing.queries.js';
import { dueGroups, msUntilNextClose } from '../../projections/coalescing/coalescing.queries.js';
import type { SqlExecutor } from '../../projections/sql-client.js';
import { eachConcurrently, idleUntil, TimedLoop } from '../runner/timed-loop.js';

export const COALESCE_TIMERS = 'timers:coalesce';

export interface CoalesceTimersOptions {
  sql: SqlExecutor;
  /**
   * Closes one due group: admission of its first member, which finds the group due by the database clock and
   * decides it in one write; answers whether anything was appended.
   */
  close: (group: DueGroup) => Promise<boolean>;
  /** The longest sleep between two looks: new windows are seen by then (REVEILLE_DELIVERY_POLL_MS). */
  maxIdleMs: number;
  concurrency?: number;
  onError?: (error: unknown) => void;
}

const DUE_PER_PASS = 200;
/** Folds come in bursts under load: a poke is answered after this long, so a burst costs one look. */
const POKE_DELAY_MS = 50;
const DEFAULT_CONCURRENCY = 4;
/** A due row that closed nothing (the process clock samples the database's a little behind it): look again soon. */
const RETRY_DUE_MS = 100;

/**
 * DD-5 windows by the database clock (SC-6): finds the open groups whose window has passed in the `coalescing`
 * read model and closes each, then sleeps until the next window the read model knows of (capped), or until
 * `poke()` says a group opened. The windows are the log's, not this process's: a restart, or another process
 * running the same loop, finds them in the same rows; the close is appended at the coalesce stream's revision,
 * so of racing closers one closes and the others append nothing.
 */
export class CoalesceTimers extends TimedLoop {
  readonly name = COALESCE_TIMERS;
  private unclosed = false;

  constructor(private readonly options: CoalesceTimersOptions) {
    super(options.onError, POKE_DELAY_MS);
  }

  async runOnce(): Promise<number> {
    const due = await dueGroups(this.options.sql, DUE_PER_PASS);
    let closed = 0;
    await eachConcurrently(due, this.options.concurrency ?? DEFAULT_CONCURRENCY, async (group) => {
      if (await this.options.close(group)) closed++;
    });
    this.unclosed = closed < due.length;
    return closed;
  }

  poke(): void {
    this.nudge();
  }

  /** Until the next window closes by the database clock; rows the read model has not folded yet are seen then. */
  protected async idleFor(): Promise<number> {
    const next = await msUntilNextClose(this.options.sql);
    return idleUntil(this.unclosed ? Math.min(next ?? RETRY_DUE_MS, RETRY_DUE_MS) : next, this.options.maxIdleMs);
  }
}
