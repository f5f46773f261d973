import type { Clock } from '../../domain/ports/clock.js';
import type { AppendSignal } from '../../projections/runner/append-signal.js';
import type { EventStore } from '../../domain/ports/event-store.js';
import type { SqlClient } from '../../projections/sql-client.js';
import type { ScheduleEvent } from '../../domain/schedule/schedule-events.js';

export interface MaterializerOptions {
  store: EventStore;
  sql: SqlClient;
  /** Defaults to the database clock (SC-6). */
  clock?: Clock;
  signal?: AppendSignal;
  /** tz data of this process, recorded with each decision (SC-7). */
  tzdataVersion?: string | null;
  batchSize?: number;
  concurrency?: number;
  /** `skip_locked`: concurrent schedulers take disjoint due rows; `none`: they race on the same ones. */
  claim?: 'skip_locked' | 'none';
  /** 0: never; only the SQL stores stage. */
  stageLeadMs?: number;
  maxIdleMs?: number;
  onError?: (error: unknown) => void;
  /** `cpuMs` includes whatever else ran between the stage's slices. */
  onStaged?: (instant: string, staged: number, ms: number, cpuMs: number) => void;
  onCommitted?: (fired: readonly string[], now: string) => void;
}

export interface MaterializeStats {
  triggers: number;
  fired: number;
  skipped: number;
  held: number;
  conflicts: number;
  /** Due Triggers whose decision threw; they stay due and the loop backs off. */
  failed: number;
  staged: number;
}

/** Measured on 2 cores (BENCHMARKS.md "schedules"): two transactions of 500 keep node and PostgreSQL busy. */
export const DEFAULT_BATCH = 500;
export const DEFAULT_CONCURRENCY = 2;
/** 10,000 decisions take about a CPU second to stage; a stage cut short leaves the rest to the pass. */
export const DEFAULT_STAGE_LEAD_MS = 10_000;
export const STAGE_LIMIT = 50_000;
export const STAGE_SLICE = 250;
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
