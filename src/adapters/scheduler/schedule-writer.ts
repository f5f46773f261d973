import type { AppendSignal } from '../../projections/runner/append-signal.js';
import type { EventStore, TransactionalAppendResult } from '../../domain/ports/event-store.js';
import { WrongExpectedRevision } from '../../domain/shared/errors.js';
import { ScheduleConflict, type ScheduleDecision } from '../../domain/schedule/schedule-decision.js';
import type { SqlClient, SqlExecutor } from '../../projections/sql-client.js';
import { foldDueIndex, type IndexedEvent } from '../../projections/scheduler/due-index.js';
import { dueIndexUpdateRow, writeDueIndexRows } from '../../projections/scheduler/due-index.writes.js';
import type { DueRow } from '../../projections/scheduler/due-rows.js';
import { appendsOf } from '../../commands/scheduler/schedule-appends.js';
import type { ResolvedFire } from './schedule-staging.js';

export interface DueDecision {
  decision: ScheduleDecision;
  row: DueRow;
}

/** PostgreSQL aborts one of two transactions waiting on each other; for us that is just a lost race. */
export const isDeadlock = (error: unknown): boolean =>
  ['40P01', '40001'].includes((error as { code?: string } | null)?.code ?? '');

export type TransactionalStore = EventStore & Required<Pick<EventStore, 'inTransaction'>>;
export const isTransactional = (store: EventStore): store is TransactionalStore => store.inTransaction !== undefined;

/**
 * On the SQL stores one transaction: a racing scheduler sees all of it or fails its own append or
 * compare-and-set and re-reads, and a crash leaves no instant fired without its boundary.
 */
export interface ScheduleWriter {
  readonly transactional: boolean;
  /** `tx` and `staged`: SQL only. */
  commit(decisions: readonly DueDecision[], tx?: SqlExecutor, staged?: readonly ResolvedFire[]): Promise<number>;
}

export class SqlScheduleWriter implements ScheduleWriter {
  readonly transactional = true;

  constructor(
    private readonly store: TransactionalStore,
    private readonly sql: SqlClient,
    private readonly signal?: AppendSignal,
  ) {}

  async commit(
    decisions: readonly DueDecision[],
    tx?: SqlExecutor,
    staged: readonly ResolvedFire[] = [],
  ): Promise<number> {
    if (decisions.length === 0 && staged.length === 0) return 0;
    if (!tx) {
      const position = await this.sql.transaction((inner) => this.commit(decisions, inner, staged));
      this.signal?.notify();
      return position;
    }
    const appends = decisions.map(({ decision }) => {
      const { occurrences, schedule } = appendsOf(decision);
      return decision.routine ? [...occurrences] : [...occurrences, schedule];
    });
    let recorded: TransactionalAppendResult;
    try {
      recorded = await this.store.inTransaction(tx).appendBatch(
        appends.flat(),
        staged.map((f) => f.event),
      );
    } catch (error) {
      if (error instanceof WrongExpectedRevision || isDeadlock(error)) throw new ScheduleConflict(error);
      throw error;
    }
    // The index rows follow in the same transaction, compared-and-set on the state each decision read.
    let at = 0;
    const rows = decisions.map(({ row }, i) => {
      const events = recorded.streams
        .slice(at, (at += appends[i]!.length))
        .flat()
        .sort((a, b) => a.position - b.position) as unknown as IndexedEvent[];
      const next = events.reduce((s, e) => foldDueIndex(s, row.schedule, e), row.indexed);
      return JSON.stringify(dueIndexUpdateRow({ key: row, expected: row.indexed, next }));
    });
    staged.forEach((fire, i) => rows.push(fire.indexRow(recorded.prepared[i]!)));
    let matched: number;
    try {
      matched = await writeDueIndexRows(tx, rows);
    } catch (error) {
      if (isDeadlock(error)) throw new ScheduleConflict(error);
      throw error;
    }
    if (matched !== rows.length) throw new ScheduleConflict();
    let last = 0;
    for (const events of recorded.streams) for (const e of events) last = Math.max(last, e.position);
    for (const position of recorded.prepared) last = Math.max(last, position);
    return last;
  }
}

/**
 * EventStoreDB has no transaction across streams: Occurrences go first, then the schedule events. A crash between
 * the two leaves Occurrences the next decision re-fires into the same streams, so still one per instant (SC-3).
 */
export class StoreScheduleWriter implements ScheduleWriter {
  readonly transactional = false;

  constructor(private readonly store: EventStore) {}

  async commit(decisions: readonly DueDecision[]): Promise<number> {
    let position = 0;
    for (const { decision } of decisions) {
      const { occurrences, schedule } = appendsOf(decision);
      for (const o of occurrences) {
        try {
          position = (await this.store.append(o.streamId, o.events, o.expected)).position;
        } catch (error) {
          if (!(error instanceof WrongExpectedRevision)) throw error;
        }
      }
      if (schedule.events.length === 0) continue;
      try {
        position = (await this.store.append(schedule.streamId, schedule.events, schedule.expected)).position;
      } catch (error) {
        if (error instanceof WrongExpectedRevision) throw new ScheduleConflict(error);
        throw error;
      }
    }
    return position;
  }
}
