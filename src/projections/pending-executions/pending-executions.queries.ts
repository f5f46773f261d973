import type { SqlExecutor } from '../sql-client.js';

export interface ClaimableFilter {
  missionId?: string | null;
  triggerId?: string | null;
}

export interface ClaimableExecution {
  executionId: string;
  missionId: string;
  /** This delivery of it: a retry, a redelivery or a recovery queues it again under another offer. */
  offer: string;
}

/**
 * AD-5: a `resource:` lane hands out only its oldest live execution (a retrying one keeps its place), so nothing
 * behind a claimed one; the per-Trigger fallback lane does not serialize. AD-2: a Mission whose slots are all
 * held is skipped (an execution holding its slot since admission is not). For a row `p` not claimed, joined
 * to `h`, its Mission's count of held slots.
 */
const CLAIMABLE_NOW = `(p.lane NOT LIKE 'resource:%' OR NOT EXISTS (
          SELECT 1 FROM rm_pending_executions l
          WHERE l.tenant = p.tenant AND l.lane = p.lane AND l.position < p.position))
        AND (p.holds_slot OR coalesce(h.n, 0) < p.max_concurrent)`;

/** AD-2: the Mission of row `p` is `state` now (paused, say); a Mission it never saw revised counts as active. */
const missionIs = (state: string) => `EXISTS (
          SELECT 1 FROM rm_pending_missions m
          WHERE m.tenant = p.tenant AND m.mission_id = p.mission_id AND m.state = '${state}')`;
const MISSION_ACTIVE = `NOT EXISTS (
          SELECT 1 FROM rm_pending_missions m
          WHERE m.tenant = p.tenant AND m.mission_id = p.mission_id AND m.state <> 'active')`;

/**
 * Claim-next's candidates in acceptance order, claimable now (CLAIMABLE_NOW) and of a Mission that runs work now
 * (AD-2); a retry waiting for its backoff is not.
 * The rows may trail the log; the claim's compare-and-set is the truth.
 */
export async function claimableExecutions(
  sql: SqlExecutor,
  tenant: string,
  filter: ClaimableFilter,
  limit: number,
): Promise<ClaimableExecution[]> {
  const result = await sql.query<{ execution_id: string; mission_id: string; offer: string }>({
    name: 'reveille_claimable_executions_v5',
    // Slots held are counted once per Mission, not once per candidate row: a deep backlog behind a busy
    // Mission made the per-row count O(backlog × claimed) on every claim-next.
    text: `WITH held AS (
        SELECT s.mission_id, count(*) AS n FROM rm_pending_executions s
        WHERE s.tenant = $1 AND s.holds_slot AND ($2::text IS NULL OR s.mission_id = $2)
        GROUP BY s.mission_id)
      SELECT p.execution_id, p.mission_id, p.position || '|' || coalesce(extract(epoch FROM p.claim_by)::text, '') AS offer
      FROM rm_pending_executions p
      LEFT JOIN held h ON h.mission_id = p.mission_id
      WHERE p.tenant = $1 AND NOT p.claimed AND p.next_attempt_at IS NULL
        AND ($2::text IS NULL OR p.mission_id = $2) AND ($3::text IS NULL OR p.trigger_id = $3)
        AND ${CLAIMABLE_NOW} AND ${MISSION_ACTIVE}
      ORDER BY p.position
      LIMIT $4`,
    values: [tenant, filter.missionId ?? null, filter.triggerId ?? null, limit],
  });
  return result.rows.map((r) => ({ executionId: r.execution_id, missionId: r.mission_id, offer: r.offer }));
}

/**
 * AD-5: the oldest execution of `lane` before `executionId` that has not ended, else one of the lane claimed now
 * (null: `executionId`'s turn). `position`: where the execution stands in the queue when its own row is not there.
 */
export async function laneAhead(
  sql: SqlExecutor,
  tenant: string,
  lane: string,
  executionId: string,
  position: number,
): Promise<string | null> {
  const result = await sql.query<{ execution_id: string }>({
    name: 'reveille_lane_ahead',
    text: `SELECT l.execution_id FROM rm_pending_executions l
      WHERE l.tenant = $1 AND l.lane = $2 AND l.execution_id <> $3
        AND (l.claimed OR l.position < coalesce(
          (SELECT p.position FROM rm_pending_executions p WHERE p.execution_id = $3), $4))
      ORDER BY l.position
      LIMIT 1`,
    values: [tenant, lane, executionId, position],
  });
  return result.rows[0]?.execution_id ?? null;
}

export interface DueDelivery {
  tenant: string;
  executionId: string;
}

/**
 * EX-4 timers, by the database clock: retries whose backoff is over, and unclaimed deliveries past their claim
 * window that a consumer could claim right now. An execution queued behind its Mission's maxConcurrent or its
 * resource lane is not due: waiting for a slot spends no attempt, and once the slot or lane is freed it has a
 * whole claim window from then (`rm_pending_frees`) before it is delivered again. A paused Mission's work is held
 * the same way until it resumes (AD-2); a cancelled or revoked one's runs out its deliveries into dead letters. The
 * rows may trail the log; AdvanceDelivery decides from the execution stream.
 */
export async function dueDeliveries(sql: SqlExecutor, limit: number): Promise<DueDelivery[]> {
  const result = await sql.query<{ tenant: string; execution_id: string }>({
    name: 'reveille_due_deliveries_v2',
    text: `WITH held AS (
        SELECT s.tenant, s.mission_id, count(*) AS n FROM rm_pending_executions s WHERE s.holds_slot
        GROUP BY s.tenant, s.mission_id)
      (SELECT p.tenant, p.execution_id, p.next_attempt_at AS due FROM rm_pending_executions p
        WHERE p.next_attempt_at <= now() AND NOT ${missionIs('paused')}
        ORDER BY p.next_attempt_at LIMIT $1)
      UNION ALL
      (SELECT p.tenant, p.execution_id, p.claim_by AS due FROM rm_pending_executions p
        LEFT JOIN held h ON h.tenant = p.tenant AND h.mission_id = p.mission_id
        WHERE NOT p.claimed AND p.next_attempt_at IS NULL AND p.claim_by <= now() AND ${CLAIMABLE_NOW}
          AND NOT ${missionIs('paused')}
          AND NOT EXISTS (
            SELECT 1 FROM rm_pending_frees f
            WHERE f.tenant = p.tenant
              AND (f.scope = 'lane:' || p.lane OR (NOT p.holds_slot AND f.scope = 'mission:' || p.mission_id))
              AND f.freed_at > p.claim_by AND f.freed_at + p.claim_within * interval '1 second' > now())
        ORDER BY p.claim_by LIMIT $1)
      ORDER BY due LIMIT $1`,
    values: [limit],
  });
  return result.rows.map((r) => ({ tenant: r.tenant, executionId: r.execution_id }));
}

/**
 * Milliseconds from the database's now until the next timer falls due (null: none ahead). Timers already
 * past but waiting for a slot (or its window after a free) are not counted: the caller polls for those.
 */
export async function msUntilNextDue(sql: SqlExecutor): Promise<number | null> {
  const result = await sql.query<{ ms: number | string | null }>({
    name: 'reveille_next_due_delivery_v2',
    // Each the first entry of its timer index: as min() over a UNION the cached generic plan aggregated every
    // pending row (≈ 600 buffers a call with 48,000 unclaimed executions).
    text: `SELECT (EXTRACT(EPOCH FROM (least(
        (SELECT next_attempt_at FROM rm_pending_executions WHERE next_attempt_at > now()
          ORDER BY next_attempt_at LIMIT 1),
        (SELECT claim_by FROM rm_pending_executions
          WHERE NOT claimed AND next_attempt_at IS NULL AND claim_by > now() ORDER BY claim_by LIMIT 1)) - now())) * 1000)::float8 AS ms`,
  });
  const ms = result.rows[0]?.ms;
  return ms === null || ms === undefined ? null : Number(ms);
}
