import type { AppendSignal } from '../../projections/runner/append-signal.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { WrongExpectedRevision } from '../../domain/shared/errors.js';
import {
  BatchConflict,
  insertContents,
  newStreamContents,
  positionKey,
  prepareBatch,
} from '../eventstore/sql/sql-batch-append.js';
import type { SqlClient, SqlExecutor } from '../../projections/sql-client.js';
import { foldScheduleSide, type IndexedEvent } from '../../projections/schedules/schedule-index.js';
import { sideRow, writeSideRows } from '../../projections/schedules/schedules.state.js';
import { appendsOf, type ScheduleDecision } from './schedule-appends.js';
import type { ResolvedFire } from './schedule-staging.js';

/** A stream of the decision moved since it was read: nothing of it (SQL) or only idempotent occurrences (ESDB) were written. */
export class ScheduleConflict extends Error {
  override readonly name = 'ScheduleConflict';
  constructor(cause?: unknown) {
    super('a schedule or occurrence stream moved under the decision', { cause });
  }
}

/** PostgreSQL aborts one of two transactions waiting on each other; for us that is just a lost race. */
export const isDeadlock = (error: unknown): boolean =>
  ['40P01', '40001'].includes((error as { code?: string } | null)?.code ?? '');

/**
 * Commits decisions on schedule streams. On the SQL stores a batch's Occurrences, the schedule events
 * of its recorded (non-routine) decisions and its due-index rows are one transaction: a racing
 * scheduler either sees all of it or fails its own append or compare-and-set and re-reads, and a
 * crash leaves no instant fired without its boundary.
 */
export interface ScheduleWriter {
  readonly transactional: boolean;
  /**
   * Inside `tx` when the caller already holds one (SQL only), with the staged routine fires the pass
   * took (SQL only). Returns the last position written; throws ScheduleConflict.
   */
  commit(decisions: readonly ScheduleDecision[], tx?: SqlExecutor, staged?: readonly ResolvedFire[]): Promise<number>;
}

export class SqlScheduleWriter implements ScheduleWriter {
  readonly transactional = true;

  constructor(
    private readonly sql: SqlClient,
    private readonly signal?: AppendSignal,
  ) {}

  async commit(
    decisions: readonly ScheduleDecision[],
    tx?: SqlExecutor,
    staged: readonly ResolvedFire[] = [],
  ): Promise<number> {
    if (decisions.length === 0 && staged.length === 0) return 0;
    if (!tx) {
      const position = await this.sql.transaction((inner) => this.commit(decisions, inner, staged));
      this.signal?.notify();
      return position;
    }
    const appends = decisions.map((d) => {
      const { occurrences, schedule } = appendsOf(d);
      return d.routine ? [...occurrences] : [...occurrences, schedule];
    });
    const { appended, contents } = prepareBatch(appends.flat());
    const positions = new Map<string, number>();
    try {
      // The Occurrences (new streams) as one flat INSERT, the schedule events chained: both in this transaction.
      const { fresh, chained } = newStreamContents([...contents, ...staged.map((f) => f.content)]);
      for (const part of [fresh, chained])
        for (const [key, position] of await insertContents(tx, part)) positions.set(key, position);
    } catch (error) {
      if (error instanceof BatchConflict || isDeadlock(error)) throw new ScheduleConflict(error);
      throw error;
    }
    for (const events of appended)
      for (const e of events) e.position = positions.get(positionKey(e.streamId, e.revision)) ?? 0;
    // The index row follows in the same transaction, compared-and-set on the side the decision read.
    let at = 0;
    const rows = decisions.map((d, i) => {
      const events = appended
        .slice(at, (at += appends[i]!.length))
        .flat()
        .sort((a, b) => a.position - b.position) as unknown as IndexedEvent[];
      const index = d.index;
      if (!index) throw new Error('a SQL schedule decision carries the index side it was made from');
      const side = events.reduce((s, e) => foldScheduleSide(s, index.schedule, e), index.side);
      return JSON.stringify(
        sideRow({ key: { tenant: d.binding.tenant, triggerId: d.binding.triggerId }, expected: index.side, side }),
      );
    });
    for (const fire of staged)
      rows.push(fire.sideRow(positions.get(positionKey(fire.content.streamId, fire.content.revision))!));
    let matched: number;
    try {
      matched = await writeSideRows(tx, rows);
    } catch (error) {
      if (isDeadlock(error)) throw new ScheduleConflict(error);
      throw error;
    }
    if (matched !== rows.length) throw new ScheduleConflict();
    let last = 0;
    for (const position of positions.values()) last = Math.max(last, position);
    return last;
  }
}

/**
 * Event stores outside PostgreSQL (EventStoreDB) have no transaction across streams: occurrences go
 * first (an existing one means another scheduler won it), then the schedule events at the revision
 * read. A crash between the two leaves occurrences whose instants the next decision re-fires into
 * the same streams, so still one Occurrence per instant; the due index follows via the projection.
 */
export class StoreScheduleWriter implements ScheduleWriter {
  readonly transactional = false;

  constructor(private readonly store: EventStore) {}

  async commit(decisions: readonly ScheduleDecision[]): Promise<number> {
    let position = 0;
    for (const decision of decisions) {
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
