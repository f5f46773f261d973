import type { SqlExecutor } from '../sql-client.js';

export interface DueGroup {
  streamId: string;
  groupId: string;
  memberStream: string;
}

/** DD-5: groups whose window has passed by the database clock (SC-6), oldest first. The rows may trail the log. */
export async function dueGroups(sql: SqlExecutor, limit: number): Promise<DueGroup[]> {
  const result = await sql.query<{ stream_id: string; group_id: string; member_stream: string }>({
    name: 'reveille_due_coalesce_groups',
    text: `SELECT stream_id, group_id, member_stream FROM rm_coalesce_open WHERE closes_at <= now()
           ORDER BY closes_at LIMIT $1`,
    values: [limit],
  });
  return result.rows.map((r) => ({ streamId: r.stream_id, groupId: r.group_id, memberStream: r.member_stream }));
}

/** Milliseconds from the database's now until the next window closes (null: none open ahead). */
export async function msUntilNextClose(sql: SqlExecutor): Promise<number | null> {
  const result = await sql.query<{ ms: number | string | null }>({
    name: 'reveille_next_coalesce_close',
    text: `SELECT (EXTRACT(EPOCH FROM (min(closes_at) - now())) * 1000)::float8 AS ms FROM rm_coalesce_open
           WHERE closes_at > now()`,
  });
  const ms = result.rows[0]?.ms;
  return ms === null || ms === undefined ? null : Number(ms);
}
