import { isoSql } from '../occurrences/cursor.js';
import type { SqlExecutor } from '../sql-client.js';

export interface SubscriptionView {
  subscriptionId: string;
  state: 'active' | 'matched' | 'timed_out';
  target: { triggerId: string } | { sourceId: string };
  match: unknown;
  deadline: string;
  registeredAt: string;
  matchedOccurrenceId?: string;
  resolvedAt?: string;
}

/** SU-1: an execution's subscriptions in registration order (bounded: a page of `limit` after `afterPosition`). */
export async function subscriptionsOf(
  sql: SqlExecutor,
  tenant: string,
  executionId: string,
  limit: number,
  afterPosition = '0',
): Promise<Array<SubscriptionView & { position: number }>> {
  const { rows } = await sql.query<{
    subscription_id: string;
    state: SubscriptionView['state'];
    target_kind: 'trigger' | 'source';
    target_id: string;
    match: unknown;
    deadline: string;
    registered_at: string;
    matched_occurrence_id: string | null;
    resolved_at: string | null;
    registered_position: string | number;
  }>(
    `SELECT subscription_id, state, target_kind, target_id, match, ${isoSql('deadline')} AS deadline,
            ${isoSql('registered_at')} AS registered_at, matched_occurrence_id, ${isoSql('resolved_at')} AS resolved_at,
            registered_position
       FROM rm_subscriptions WHERE tenant = $1 AND execution_id = $2 AND registered_position > $3
      ORDER BY registered_position LIMIT $4`,
    [tenant, executionId, afterPosition, limit],
  );
  return rows.map((r) => ({
    subscriptionId: r.subscription_id,
    state: r.state,
    target: r.target_kind === 'trigger' ? { triggerId: r.target_id } : { sourceId: r.target_id },
    match: r.match,
    deadline: r.deadline,
    registeredAt: r.registered_at,
    ...(r.matched_occurrence_id ? { matchedOccurrenceId: r.matched_occurrence_id } : {}),
    ...(r.resolved_at ? { resolvedAt: r.resolved_at } : {}),
    position: Number(r.registered_position),
  }));
}

export interface DueSubscriptionRow {
  tenant: string;
  targetKind: 'trigger' | 'source';
  targetId: string;
  executionId: string;
  subscriptionId: string;
}

/** SU-1 deadlines by the database clock; the rows may trail the log, the timeout decides from the stream. */
export async function dueSubscriptions(sql: SqlExecutor, limit: number): Promise<DueSubscriptionRow[]> {
  const { rows } = await sql.query<{
    tenant: string;
    target_kind: 'trigger' | 'source';
    target_id: string;
    execution_id: string;
    subscription_id: string;
  }>(
    `SELECT tenant, target_kind, target_id, execution_id, subscription_id FROM rm_subscriptions
      WHERE state = 'active' AND deadline <= now() ORDER BY deadline LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({
    tenant: r.tenant,
    targetKind: r.target_kind,
    targetId: r.target_id,
    executionId: r.execution_id,
    subscriptionId: r.subscription_id,
  }));
}

/** Milliseconds from the database's now to the next deadline ahead (null: none). */
export async function msUntilNextDeadline(sql: SqlExecutor): Promise<number | null> {
  const { rows } = await sql.query<{ ms: number | string | null }>(
    `SELECT (EXTRACT(EPOCH FROM (min(deadline) - now())) * 1000)::float8 AS ms FROM rm_subscriptions
      WHERE state = 'active' AND deadline > now()`,
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? null : Number(ms);
}
