import { randomUUID } from 'node:crypto';
import pg from 'pg';

/**
 * The baseline every benchmark compares against: a plain INSERT of an occurrence-sized row
 * (≈ 500-byte JSON) into a table without hash chain or checks, at the given concurrency.
 */
export async function rawInsertRate(
  databaseUrl: string,
  schema: string,
  concurrency: number,
  seconds: number,
): Promise<number> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: concurrency, options: `-c search_path=${schema}` });
  pool.on('error', () => undefined);
  try {
    await pool.query(`CREATE TABLE IF NOT EXISTS raw_baseline (position bigserial PRIMARY KEY, event_id uuid UNIQUE, stream_id text, revision int,
      type text, data jsonb, metadata jsonb, recorded_at timestamptz DEFAULT now(), UNIQUE (stream_id, revision))`);
    const data = JSON.stringify({ pad: 'x'.repeat(480) });
    const deadline = Date.now() + seconds * 1000;
    let count = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < deadline) {
          await pool.query({
            name: 'raw_baseline_insert',
            text: 'INSERT INTO raw_baseline (event_id, stream_id, revision, type, data, metadata) VALUES ($1, $2, 0, $3, $4, $5)',
            values: [randomUUID(), `occurrence-${randomUUID()}`, 'OccurrenceObserved', data, '{}'],
          });
          count += 1;
        }
      }),
    );
    return count / ((performance.now() - started) / 1000);
  } finally {
    await pool.query('DROP TABLE IF EXISTS raw_baseline').catch(() => undefined);
    await pool.end();
  }
}

/**
 * The same row written `rowsPerStatement` at a time in one multi-row INSERT: the fair baseline for
 * writers that batch (the schedule materializer commits a batch of due instants per statement).
 * Returns rows per second.
 */
export async function rawBatchInsertRate(
  databaseUrl: string,
  schema: string,
  concurrency: number,
  seconds: number,
  rowsPerStatement: number,
): Promise<number> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: concurrency, options: `-c search_path=${schema}` });
  pool.on('error', () => undefined);
  try {
    await pool.query(`CREATE TABLE IF NOT EXISTS raw_batch_baseline (position bigserial PRIMARY KEY, event_id uuid UNIQUE, stream_id text, revision int,
      type text, data jsonb, metadata jsonb, recorded_at timestamptz DEFAULT now(), UNIQUE (stream_id, revision))`);
    const data = JSON.stringify({ pad: 'x'.repeat(480) });
    const deadline = Date.now() + seconds * 1000;
    let count = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < deadline) {
          const rows = Array.from({ length: rowsPerStatement }, () => ({
            id: randomUUID(),
            stream: `occurrence-${randomUUID()}`,
          }));
          await pool.query(
            `INSERT INTO raw_batch_baseline (event_id, stream_id, revision, type, data, metadata)
             SELECT (r->>'id')::uuid, r->>'stream', 0, 'OccurrenceObserved', $2::jsonb, '{}'::jsonb FROM jsonb_array_elements($1::jsonb) AS r`,
            [JSON.stringify(rows), data],
          );
          count += rowsPerStatement;
        }
      }),
    );
    return count / ((performance.now() - started) / 1000);
  } finally {
    await pool.query('DROP TABLE IF EXISTS raw_batch_baseline').catch(() => undefined);
    await pool.end();
  }
}
