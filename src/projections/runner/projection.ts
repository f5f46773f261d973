import type { RecordedEvent } from '../../domain/ports/event-store.js';
import type { Migration } from '../migration.js';
import type { SqlExecutor, SqlQuery } from '../sql-client.js';

/** One read model: its tables, the events it folds, and how one event changes its rows. */
export interface Projection {
  name: string;
  /** Event types it folds; other events only advance its checkpoint. */
  handles: readonly string[];
  /** Paths in the events' data it never reads (payloads): left out of its log reads. */
  omitsData?: ReadonlyArray<readonly string[]>;
  migrations: Migration[];
  /** Emptied by a rebuild before replaying from position 0. */
  tables: readonly string[];
  /** Must be idempotent per event: a replayed batch after a crash rewrites the same rows. */
  apply(event: RecordedEvent, tx: SqlExecutor): Promise<void>;
  /**
   * Optional: folds a batch of handled events (in log order) with fewer statements than one per
   * event. Must leave the same rows as applying them one by one.
   */
  applyBatch?(events: RecordedEvent[], tx: SqlExecutor): Promise<void>;
  /**
   * Optional: the statements one event turns into, when they need no result of an earlier one. The
   * runner then sends a whole batch and its checkpoint as one atomic script (one round trip).
   */
  evolve?(event: RecordedEvent): SqlQuery[];
  /** Optional with `evolve`: fewer statements for a whole batch, leaving the same rows. */
  evolveBatch?(events: RecordedEvent[]): SqlQuery[];
  /** Set when several read models fold as one (see foldedTogether): their names also find this one. */
  members?: readonly Projection[];
}
