import type { DeliveryConflictRecorded } from '../../domain/occurrence/occurrence-events.js';
import type { RecordedEvent } from '../../domain/ports/event-store.js';
import type { SqlQuery } from '../sql-client.js';
import { msSql } from './cursor.js';

/** SQL shared by the Occurrence explorer's folds (one event at a time and set-based). */

export const json = (value: unknown): string => JSON.stringify(value ?? null);

/** Decision events carry no tenant, but the id hashes a tenant-scoped identity: metadata.tenant only narrows. */
export const ROW = `occurrence_id = $1 AND tenant = COALESCE($2::text, tenant)`;

/**
 * WH-8's undecided count per source, moved by each statement's `delta` CTE: backpressure reads a handful of rows.
 * A batch whose moves sum to 0 still writes the row, as one event at a time would have: a rebuild (large batches)
 * then holds the same rows as the live fold (AU-2 compares them).
 */
export const MOVE_UNDECIDED = `INSERT INTO rm_outstanding AS r (tenant, source_id, undecided)
             SELECT tenant, source_id, sum(n) FROM delta WHERE source_id IS NOT NULL GROUP BY tenant, source_id
             ON CONFLICT (tenant, source_id) DO UPDATE SET undecided = r.undecided + EXCLUDED.undecided`;

/** `write` (an INSERT into or UPDATE of rm_occurrences as `o`), moving the undecided count by `n` for each row it writes. */
export const movingUndecided = (write: string, n: 1 | -1) => `WITH written AS (
               ${write}
               RETURNING o.tenant, o.auth->>'sourceId' AS source_id),
             delta AS (SELECT tenant, source_id, ${n} AS n FROM written)
             ${MOVE_UNDECIDED}`;

/** OC-4: counted once per conflict event: the increment only follows a first insert of the event id. */
export function conflict(event: RecordedEvent<DeliveryConflictRecorded['data']>): SqlQuery[] {
  const d = event.data;
  return [
    {
      text: `WITH recorded AS (
               INSERT INTO rm_occurrence_conflicts (event_id, tenant, occurrence_id, conflicting_digest, at)
               SELECT $3::uuid, tenant, occurrence_id, $4::text, ${msSql('$5')} FROM rm_occurrences WHERE ${ROW}
               ON CONFLICT (event_id) DO NOTHING
               RETURNING tenant, occurrence_id)
             UPDATE rm_occurrences o SET conflicts = o.conflicts + 1, last_position = $6
               FROM recorded r WHERE o.tenant = r.tenant AND o.occurrence_id = r.occurrence_id`,
      values: [d.occurrenceId, event.metadata.tenant ?? null, event.id, d.conflictingDigest, d.at, event.position],
    },
  ];
}
