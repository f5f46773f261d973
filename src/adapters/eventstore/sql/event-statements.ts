import type { ReadAllOptions } from '../../../domain/ports/event-store.js';
import { APPENDED_COLUMNS, chainHashSql, eventColumns, INSERT_COLUMNS, recordedAtText, STAMP } from './event-row.js';

// The event store's SQL texts; the rules they keep are stated once, at the top of sql-event-store.ts.

/** Several events of one stream; $3 is the revision the stream must be at (-1: must not exist). */
export const APPEND_SQL = `
WITH RECURSIVE
input AS (SELECT ord, e FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS t(e, ord)),
stamp AS (${STAMP}),
prev AS (SELECT NULL::text AS hash WHERE $3::int = -1
         UNION ALL SELECT hash FROM events WHERE stream_id = $1 AND revision = $3::int),
chain AS (
  SELECT i.ord, i.e, p.hash AS prev_hash, ${chainHashSql('p.hash', 's.rec', "(i.e->>'content')")} AS hash
    FROM input i, prev p, stamp s WHERE i.ord = 1
  UNION ALL
  SELECT i.ord, i.e, c.hash, ${chainHashSql('c.hash', 's.rec', "(i.e->>'content')")}
    FROM chain c JOIN input i ON i.ord = c.ord + 1, stamp s
)
INSERT INTO events (${INSERT_COLUMNS})
SELECT (e->>'id')::uuid, $1, $3::int + ord::int, e->>'type', (e->>'schemaVersion')::int, e->'data', e->'metadata', s.ts, c.hash, c.prev_hash
  FROM chain c, stamp s ORDER BY c.ord
RETURNING ${APPENDED_COLUMNS}`;

/** The hot path (each dedupe, decision and claim): no CTE, about half APPEND_SQL's cost (BENCHMARKS.md). */
export const APPEND_ONE_SQL = `
INSERT INTO events (${INSERT_COLUMNS})
SELECT $1::uuid, $2, $3::int + 1, $4, $5::int, $6::jsonb, $7::jsonb, s.ts, ${chainHashSql('p.hash', 's.rec', '$8::text')}, p.hash
  FROM (${STAMP}) s
  LEFT JOIN events p ON p.stream_id = $2 AND p.revision = $3::int
 WHERE $3::int = -1 OR p.hash IS NOT NULL
RETURNING ${APPENDED_COLUMNS}`;

/** Rule 1's visible rows after `after`, which is resolved to its (transaction_id, position) key. */
const VISIBLE_AFTER = `transaction_id < pg_snapshot_xmin(pg_current_snapshot())
   AND (transaction_id, position) > (
         SELECT a.transaction_id, a.position FROM events a WHERE a.position = $1
          UNION ALL SELECT '0'::xid8, 0::bigint
          ORDER BY 2 DESC LIMIT 1)`;

export const READ_ALL_SQL = `
SELECT ${eventColumns()} FROM events
 WHERE ${VISIBLE_AFTER}
 ORDER BY transaction_id, position
 LIMIT $2`;

/** READ_ALL_SQL with each event's stored size, which bounds the memory of the shared tail (tail-window.ts). */
export const READ_TAIL_SQL = `
SELECT ${eventColumns()}, pg_column_size(data) + pg_column_size(metadata) AS stored_bytes FROM events
 WHERE ${VISIBLE_AFTER}
 ORDER BY transaction_id, position
 LIMIT $2`;

/**
 * Every visible event of the page, in log order, but an event of another type only as its position (`wanted`
 * false, every other column null): the caller counts the page and takes its last position from them. One index
 * scan, no second pass: a page gathered in a CTE to count it and then sorted again cost PostgreSQL over twice as much
 * CPU over a million events (BENCHMARKS.md, audit). The outer ORDER BY is the subquery's, so no sort runs.
 */
export const READ_ALL_OF_SQL = `
SELECT e.position, e.wanted,
       CASE WHEN e.wanted THEN e.event_id END AS event_id, CASE WHEN e.wanted THEN e.stream_id END AS stream_id,
       CASE WHEN e.wanted THEN e.revision END AS revision, CASE WHEN e.wanted THEN e.type END AS type,
       CASE WHEN e.wanted THEN e.schema_version END AS schema_version,
       CASE WHEN NOT e.wanted THEN NULL WHEN cardinality($4::text[]) = 0 THEN e.data ELSE e.data #- $4::text[] #- $5::text[] END AS data,
       CASE WHEN e.wanted THEN e.metadata END AS metadata,
       CASE WHEN e.wanted THEN ${recordedAtText('e.recorded_at')} END AS recorded_at,
       CASE WHEN e.wanted THEN e.hash END AS hash, CASE WHEN e.wanted THEN e.prev_hash END AS prev_hash
  FROM (SELECT *, type = ANY($3::text[]) AS wanted FROM events
         WHERE ${VISIBLE_AFTER}
         ORDER BY transaction_id, position
         LIMIT $2) e
 ORDER BY e.transaction_id, e.position`;

/** readAllOf's two `#-` paths; the empty path removes nothing. */
export function omittedPaths(paths: ReadAllOptions['omitData'] = []): [string[], string[]] {
  const given = paths.filter((path) => path.length > 0);
  if (given.length > 2) throw new RangeError('readAllOf leaves out at most two data paths');
  return [[...(given[0] ?? [])], [...(given[1] ?? [])]];
}
