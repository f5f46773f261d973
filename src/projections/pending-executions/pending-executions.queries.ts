import type { SqlExecutor } from '../sql-client.js';

export interface ClaimableFilter {
  missionId?: string | null;
  triggerId?: string | null;
}

export interface ClaimableExecution {
  executionId: string;
  missionId: string;
}

/**
 * Claim-next's candidates in acceptance order. AD-5: a `resource:` lane hands out only its oldest live
 * execution, so nothing behind a claimed one; the per-Trigger fallback lane does not serialize. AD-2: a
 * Mission whose slots are all held is skipped (an execution holding its slot since admission is not).
 * The rows may trail the log; the claim's compare-and-set is the truth.
 */
export async function claimableExecutions(
  sql: SqlExecutor,
  tenant: string,
  filter: ClaimableFilter,
  limit: number,
): Promise<ClaimableExecution[]> {
  const result = await sql.query<{ execution_id: string; mission_id: string }>({
    name: 'reveille_claimable_executions_v2',
    // Slots held are counted once per Mission, not once per candidate row: a deep backlog behind a busy
    // Mission made the per-row count O(backlog × claimed) on every claim-next.
    text: `WITH held AS (
        SELECT s.mission_id, count(*) AS n FROM rm_pending_executions s
        WHERE s.tenant = $1 AND s.holds_slot AND ($2::text IS NULL OR s.mission_id = $2)
        GROUP BY s.mission_id)
      SELECT p.execution_id, p.mission_id FROM rm_pending_executions p
      LEFT JOIN held h ON h.mission_id = p.mission_id
      WHERE p.tenant = $1 AND NOT p.claimed
        AND ($2::text IS NULL OR p.mission_id = $2) AND ($3::text IS NULL OR p.trigger_id = $3)
        AND (p.lane NOT LIKE 'resource:%' OR NOT EXISTS (
          SELECT 1 FROM rm_pending_executions l
          WHERE l.tenant = p.tenant AND l.lane = p.lane AND l.position < p.position))
        AND (p.holds_slot OR coalesce(h.n, 0) < p.max_concurrent)
      ORDER BY p.position
      LIMIT $4`,
    values: [tenant, filter.missionId ?? null, filter.triggerId ?? null, limit],
  });
  return result.rows.map((r) => ({ executionId: r.execution_id, missionId: r.mission_id }));
}
