import type { RecordedEvent } from '../../domain/ports/event-store.js';
import type { Migration } from '../migration.js';
import type { SqlExecutor, SqlQuery } from '../sql-client.js';

export interface Projection {
  name: string;
  /** Event types it folds; other events only advance its checkpoint. */
  handles: readonly string[];
  /** Paths in the events' data it never reads (payloads): left out of its log reads. */
  omitsData?: ReadonlyArray<readonly string[]>;
  migrations: Migration[];
  /** Emptied by a rebuild before replaying from position 0. */
  tables: readonly string[];
  /** Indexes only the read side's queries use, never a fold's statements: a scratch rebuild goes without them. */
  readIndexes?: readonly string[];
  /** Must be idempotent per event: a replayed batch after a crash rewrites the same rows. */
  apply(event: RecordedEvent, tx: SqlExecutor): Promise<void>;
  /** Must leave the same rows as `apply` one by one, with fewer statements. */
  applyBatch?(events: RecordedEvent[], tx: SqlExecutor): Promise<void>;
  /** For statements that need no earlier result: a batch and its checkpoint then go as one atomic script. */
  evolve?(event: RecordedEvent): SqlQuery[];
  /** Fewer statements for a whole batch, leaving the same rows. */
  evolveBatch?(events: RecordedEvent[]): SqlQuery[];
  /**
   * For a read model folded by `applyBatch`: this batch's statements when it needs no earlier result (null: it
   * does), so the batch and its checkpoint go as one script instead of a transaction of round trips. Same rows.
   */
  scriptFor?(events: RecordedEvent[]): SqlQuery[] | null;
  /** Work waits on it (claim-next reads it): folded as soon as its events are in the log, never lingering for more. */
  foldsAtOnce?: boolean;
  /** Set when several read models fold as one (see foldedTogether): their names also find this one. */
  members?: readonly Projection[];
}
