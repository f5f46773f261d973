import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The baseline for delivery: a plain PostgreSQL job queue as pg-boss and graphile-worker run one. `jobs` rows
 * (≈ 500-byte payload) are inserted beforehand; each worker claims the oldest queued one with
 * `SELECT … FOR UPDATE SKIP LOCKED LIMIT 1` and an UPDATE to running in one transaction, then completes it with
 * an UPDATE. No event log, no hash chain, no concurrency limit. Returns completed jobs per second.
 */
export async function rawQueueRate(databaseUrl: string, jobs: number, workers: number): Promise<number> {
  const schema = `bench_queue_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: workers, options: `-c search_path=${schema}` });
  pool.on('error', () => undefined);
  try {
    await pool.query(`CREATE TABLE jobs (id bigserial PRIMARY KEY, status text NOT NULL DEFAULT 'queued',
      payload jsonb NOT NULL, worker text, created_at timestamptz NOT NULL DEFAULT now(), claimed_at timestamptz,
      completed_at timestamptz)`);
    await pool.query(`CREATE INDEX jobs_queued ON jobs (id) WHERE status = 'queued'`);
    await pool.query(`INSERT INTO jobs (payload) SELECT $1::jsonb FROM generate_series(1, $2)`, [
      JSON.stringify({ pad: 'x'.repeat(480) }),
      jobs,
    ]);
    await pool.query('VACUUM ANALYZE jobs');
    let completed = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: workers }, async (_, w) => {
        const client = await pool.connect();
        try {
          for (;;) {
            await client.query('BEGIN');
            const { rows } = await client.query(
              `SELECT id, payload FROM jobs WHERE status = 'queued' ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1`,
            );
            if (rows.length === 0) {
              await client.query('COMMIT');
              return;
            }
            await client.query(`UPDATE jobs SET status = 'running', worker = $2, claimed_at = now() WHERE id = $1`, [
              rows[0].id,
              `w-${w}`,
            ]);
            await client.query('COMMIT');
            await client.query(`UPDATE jobs SET status = 'completed', completed_at = now() WHERE id = $1`, [
              rows[0].id,
            ]);
            completed += 1;
          }
        } finally {
          client.release();
        }
      }),
    );
    return completed / ((performance.now() - started) / 1000);
  } finally {
    await pool.end();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await admin.end();
  }
}
