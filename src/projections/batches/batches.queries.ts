import type { SqlExecutor } from '../sql-client.js';

/** BA-1: partitions whose open batch reached its deadline by the database clock (SC-6), oldest first. */
export async function dueBatches(sql: SqlExecutor, limit: number): Promise<string[]> {
  const result = await sql.query<{ batch_stream: string }>({
    name: 'reveille_due_batches',
    text: `SELECT batch_stream FROM rm_open_batches WHERE deadline <= now() ORDER BY deadline, batch_id LIMIT $1`,
    values: [limit],
  });
  return result.rows.map((r) => r.batch_stream);
}

/** Until the next batch deadline, by the database clock; null when no open batch has one. */
export async function msUntilNextBatchDeadline(sql: SqlExecutor): Promise<number | null> {
  const result = await sql.query<{ ms: number | string | null }>({
    name: 'reveille_next_batch_deadline',
    text: `SELECT (EXTRACT(EPOCH FROM (min(deadline) - now())) * 1000)::float8 AS ms FROM rm_open_batches
           WHERE deadline IS NOT NULL`,
  });
  const ms = result.rows[0]?.ms;
  return ms === null || ms === undefined ? null : Number(ms);
}
