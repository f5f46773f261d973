import { randomUUID } from 'node:crypto';
import { eventContent } from '../../../domain/shared/event-hash.js';
import type { RecordedEvent, StreamAppend } from '../../../domain/ports/event-store.js';
import type { SqlExecutor, SqlQuery } from '../../../projections/sql-client.js';
import { isUniqueViolation } from './store-errors.js';
import { chainHashSql, INSERT_COLUMNS, STAMP } from './event-row.js';

export type BatchAppended = Pick<
  RecordedEvent,
  'id' | 'streamId' | 'revision' | 'position' | 'type' | 'schemaVersion' | 'data' | 'metadata'
>;

export class BatchConflict extends Error {
  override readonly name = 'BatchConflict';
  constructor(cause?: unknown) {
    super('a stream of the batch was not at its expected revision', { cause });
  }
}

/**
 * The only input is the canonical contents joined by newlines (canonical JSON escapes every newline, so the
 * separator is unambiguous; each content names its stream and revision). A stream that is ahead fails the unique
 * constraint; one that is behind leaves the chain short, and the count guard then inserts nothing.
 */
const APPEND_BATCH_SQL = `
WITH RECURSIVE
-- MATERIALIZED: inlined, every reference to j would parse the content again
input AS MATERIALIZED (
  SELECT t.ord, t.c AS content, t.c::jsonb AS j FROM unnest(string_to_array($1::text, E'\\n')) WITH ORDINALITY AS t(c, ord)),
batch AS (
  SELECT ord, content, j, j->>'streamId' AS stream_id, (j->>'revision')::int AS revision,
         row_number() OVER (PARTITION BY j->>'streamId' ORDER BY (j->>'revision')::int) AS k
    FROM input),
stamp AS (${STAMP}),
chain AS (
  SELECT b.ord, b.stream_id, b.revision, b.k, b.j, p.hash AS prev_hash, ${chainHashSql('p.hash', 's.rec', 'b.content')} AS hash
    FROM batch b LEFT JOIN events p ON p.stream_id = b.stream_id AND p.revision = b.revision - 1, stamp s
   WHERE b.k = 1 AND (b.revision = 0 OR p.hash IS NOT NULL)
  UNION ALL
  SELECT b.ord, b.stream_id, b.revision, b.k, b.j, c.hash, ${chainHashSql('c.hash', 's.rec', 'b.content')}
    FROM chain c JOIN batch b ON b.stream_id = c.stream_id AND b.k = c.k + 1, stamp s
)
INSERT INTO events (${INSERT_COLUMNS})
SELECT (c.j->>'id')::uuid, c.stream_id, c.revision, c.j->>'type', (c.j->>'schemaVersion')::int, c.j->'data', c.j->'metadata', s.ts, c.hash, c.prev_hash
  FROM chain c, stamp s
 WHERE (SELECT count(*) FROM chain) = $2::int
 ORDER BY c.ord
RETURNING stream_id, revision, position`;

/**
 * APPEND_BATCH_SQL for a batch with one event per stream (a claim or completion with its slot stripe): each event's
 * predecessor is its stream's last row, so no recursion, window or sort over the batch. Same guards.
 */
const APPEND_ONE_PER_STREAM_SQL = `
WITH input AS MATERIALIZED (
  SELECT t.ord, t.c AS content, t.c::jsonb AS j FROM unnest(string_to_array($1::text, E'\\n')) WITH ORDINALITY AS t(c, ord)),
stamp AS (${STAMP}),
chain AS (
  SELECT i.ord, i.j, p.hash AS prev_hash, ${chainHashSql('p.hash', 's.rec', 'i.content')} AS hash
    FROM input i LEFT JOIN events p ON p.stream_id = i.j->>'streamId' AND p.revision = (i.j->>'revision')::int - 1, stamp s
   WHERE (i.j->>'revision')::int = 0 OR p.hash IS NOT NULL)
INSERT INTO events (${INSERT_COLUMNS})
SELECT (c.j->>'id')::uuid, c.j->>'streamId', (c.j->>'revision')::int, c.j->>'type', (c.j->>'schemaVersion')::int, c.j->'data', c.j->'metadata', s.ts, c.hash, c.prev_hash
  FROM chain c, stamp s
 WHERE (SELECT count(*) FROM chain) = $2::int
 ORDER BY c.ord
RETURNING stream_id, revision, position`;

/** Callers add their conflict rule and RETURNING. */
export const INSERT_NEW_STREAMS = `
WITH input AS MATERIALIZED (
  SELECT t.ord, t.c AS content, t.c::jsonb AS j FROM unnest(string_to_array($1::text, E'\\n')) WITH ORDINALITY AS t(c, ord)),
stamp AS (${STAMP})
INSERT INTO events (${INSERT_COLUMNS})
SELECT (i.j->>'id')::uuid, i.j->>'streamId', 0, i.j->>'type', (i.j->>'schemaVersion')::int, i.j->'data', i.j->'metadata', s.ts,
       ${chainHashSql(null, 's.rec', 'i.content')}, NULL
  FROM input i, stamp s
 WHERE (i.j->>'revision')::int = 0
 ORDER BY i.ord`;

/** No predecessor to look up, so a flat INSERT; a stream that already exists fails the unique constraint. */
const APPEND_NEW_STREAMS_SQL = `${INSERT_NEW_STREAMS}
RETURNING stream_id, revision, position`;

export interface PreparedContent {
  streamId: string;
  revision: number;
  content: string;
}

/** Positions are still 0, and the contents unsorted: `insertContents` sorts them. */
export function prepareBatch(batch: readonly StreamAppend[]): {
  appended: BatchAppended[][];
  contents: PreparedContent[];
} {
  if (new Set(batch.map((b) => b.streamId)).size !== batch.length) throw new Error('a batch names each stream once');
  const appended: BatchAppended[][] = batch.map(() => []);
  const contents: PreparedContent[] = [];
  batch.forEach(({ streamId, events, expected }, i) => {
    const at = expected === 'no_stream' ? -1 : expected;
    events.forEach((e, k) => {
      const prepared = {
        id: e.id ?? randomUUID(),
        type: e.type,
        schemaVersion: e.schemaVersion ?? 1,
        data: e.data,
        metadata: e.metadata ?? {},
      };
      const revision = at + 1 + k;
      appended[i]!.push({ ...prepared, streamId, revision, position: 0 });
      contents.push({ streamId, revision, content: eventContent({ ...prepared, streamId, revision }) });
    });
  });
  return { appended, contents };
}

const byStream = (a: PreparedContent, b: PreparedContent): number =>
  a.streamId < b.streamId ? -1 : a.streamId > b.streamId ? 1 : a.revision - b.revision;

/**
 * Streams are written in stream-id order, so two racing batches over the same streams wait on each other instead
 * of deadlocking. A stream's events must be its consecutive revisions. `keepOrder` writes them in the order
 * given instead (their positions follow it), for a caller whose order is the point and whose racers write the
 * same streams in the same order (a poll's page, PO-2).
 */
export async function insertContents(
  sql: SqlExecutor,
  contents: readonly PreparedContent[],
  { keepOrder = false }: { keepOrder?: boolean } = {},
): Promise<Map<string, number>> {
  const positions = new Map<string, number>();
  if (contents.length === 0) return positions;
  if (newStreamContents(contents).fresh.length === contents.length) {
    const ordered = keepOrder ? contents : [...contents].sort(byStream);
    await insertInOrder(sql, ordered, positions, (text) => ({
      name: 'reveille_append_new_stream_batch',
      text: APPEND_NEW_STREAMS_SQL,
      values: [text],
    }));
  } else {
    const onePerStream = new Set(contents.map((c) => c.streamId)).size === contents.length;
    await insertInOrder(sql, keepOrder ? contents : [...contents].sort(byStream), positions, (text, n) =>
      onePerStream
        ? { name: 'reveille_append_one_per_stream', text: APPEND_ONE_PER_STREAM_SQL, values: [text, n] }
        : { name: 'reveille_append_batch', text: APPEND_BATCH_SQL, values: [text, n] },
    );
  }
  return positions;
}

export function newStreamContents(contents: readonly PreparedContent[]): {
  fresh: PreparedContent[];
  chained: PreparedContent[];
} {
  const perStream = new Map<string, number>();
  for (const c of contents) perStream.set(c.streamId, (perStream.get(c.streamId) ?? 0) + 1);
  const fresh: PreparedContent[] = [];
  const chained: PreparedContent[] = [];
  for (const c of contents) (c.revision === 0 && perStream.get(c.streamId) === 1 ? fresh : chained).push(c);
  return { fresh, chained };
}

async function insertInOrder(
  sql: SqlExecutor,
  ordered: readonly PreparedContent[],
  positions: Map<string, number>,
  statement: (text: string, count: number) => SqlQuery,
): Promise<void> {
  let rows: Array<{ stream_id: string; revision: number; position: string | number }>;
  try {
    rows = (
      await sql.query<{ stream_id: string; revision: number; position: string | number }>(
        statement(ordered.map((c) => c.content).join('\n'), ordered.length),
      )
    ).rows;
  } catch (error) {
    if (isUniqueViolation(error)) throw new BatchConflict(error);
    throw error;
  }
  if (rows.length !== ordered.length) throw new BatchConflict();
  for (const r of rows) positions.set(positionKey(r.stream_id, r.revision), Number(r.position));
}

export const positionKey = (streamId: string, revision: number): string => `${revision} ${streamId}`;

/** Only positions come back from the database: the rest is what was sent. One statement: all or nothing. */
export async function appendBatch(
  sql: SqlExecutor,
  batch: readonly StreamAppend[],
  { inBatchOrder = false }: { inBatchOrder?: boolean } = {},
): Promise<BatchAppended[][]> {
  const { appended, contents } = prepareBatch(batch);
  const positions = await insertContents(sql, contents, { keepOrder: inBatchOrder });
  for (const events of appended)
    for (const e of events) e.position = positions.get(positionKey(e.streamId, e.revision)) ?? 0;
  return appended;
}

/** The (stream_id, revision) key a unique violation names, as PostgreSQL words its detail. */
export function collidedKey(error: unknown): { streamId: string; revision: number } | null {
  const detail = (error as { detail?: unknown } | null)?.detail;
  const match =
    typeof detail === 'string' ? /^Key \(stream_id, revision\)=\((.*), (\d+)\) already exists\.$/s.exec(detail) : null;
  return match ? { streamId: match[1]!, revision: Number(match[2]) } : null;
}
