import type { Clock } from '../../domain/ports/clock.js';
import type { AppendSignal } from '../../projections/runner/append-signal.js';
import type { EventStore } from '../../domain/ports/event-store.js';
import type { SqlClient } from '../../projections/sql-client.js';
import type { ScheduleEvent } from '../../domain/schedule/schedule-events.js';

export interface MaterializerOptions {
  store: EventStore;
  sql: SqlClient;
  /** Defaults to the database clock (SC-6); tests pass one they move by hand. */
  clock?: Clock;
  signal?: AppendSignal;
  /** tz data of this process, recorded with each decision (SC-7). */
  tzdataVersion?: string | null;
  /** Due Triggers decided and committed per transaction. */
  batchSize?: number;
  /** Transactions in flight at once. */
  concurrency?: number;
  /** `skip_locked`: concurrent schedulers take disjoint due rows; `none`: they race on the same ones. */
  claim?: 'skip_locked' | 'none';
  /**
   * How long before an instant the loop stages its routine decisions (see schedule-staging); 0: never.
   * Only the SQL stores stage.
   */
  stageLeadMs?: number;
  /** Longest sleep between passes when nothing is due sooner. */
  maxIdleMs?: number;
  onError?: (error: unknown) => void;
  /**
   * Called after each stage with its instant, the decisions staged, the wall time it took and the
   * process's CPU time meanwhile (whatever else ran between its slices included); benchmarks, metrics.
   */
  onStaged?: (instant: string, staged: number, ms: number, cpuMs: number) => void;
  /** Called after each commit with the instants it fired (benchmarks, metrics). */
  onCommitted?: (fired: readonly string[]) => void;
}

export interface MaterializeStats {
  triggers: number;
  fired: number;
  skipped: number;
  held: number;
  conflicts: number;
  /** Due Triggers whose decision threw; they stay due and the loop backs off. */
  failed: number;
  /** Of `triggers`, decisions taken as staged before the instant (see schedule-staging). */
  staged: number;
}

/**
 * Measured on 2 cores (BENCHMARKS.md "schedules"): two transactions of 500 Triggers keep node and
 * PostgreSQL both busy; more only adds contention.
 */
export const DEFAULT_BATCH = 500;
export const DEFAULT_CONCURRENCY = 2;
/**
 * Staging 10,000 routine decisions takes about a second of CPU on the benchmark VM; it runs in slices
 * between other work, and a stage cut short by its instant only leaves the rest to the pass.
 */
export const DEFAULT_STAGE_LEAD_MS = 10_000;
/** Rows staged per instant at most, and per slice before yielding to other work. */
export const STAGE_LIMIT = 50_000;
export const STAGE_SLICE = 250;
/** Due keys read per round, and rounds per pass (a long outage is worked through round by round). */
export const KEYS_PER_ROUND = 50_000;
export const MAX_ROUNDS = 1_000;

export const emptyStats = (): MaterializeStats => ({
  triggers: 0,
  fired: 0,
  skipped: 0,
  held: 0,
  conflicts: 0,
  failed: 0,
  staged: 0,
});

export function addDecision(stats: MaterializeStats, events: readonly ScheduleEvent[]): void {
  stats.triggers += 1;
  for (const e of events) {
    if (e.type === 'ScheduleMaterialized') stats.fired += e.data.fired.length;
    else if (e.type === 'MissedOccurrencesSkipped') stats.skipped += e.data.count;
    else if (e.type === 'CatchUpHeld') stats.held += e.data.count;
  }
}
