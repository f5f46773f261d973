import type { SqlExecutor } from '../sql-client.js';
import { type TriggerHealthRow, worseHealth } from './trigger-health.view.js';

/**
 * OP-1, AD-2: a Trigger serves its Mission, and nothing it admitted runs while that Mission is paused (`held`) or
 * ever again once it is cancelled or revoked (`disabled`), whatever the Trigger's own row says.
 */
export async function withMissionHealth(sql: SqlExecutor, tenant: string, rows: TriggerHealthRow[]): Promise<void> {
  const missions = [...new Set(rows.map((row) => row.missionId).filter((id): id is string => id !== null))];
  if (missions.length === 0) return;
  const { rows: found } = await sql.query<{ mission_id: string; state: string }>(
    `SELECT mission_id, state FROM rm_trigger_health_missions WHERE tenant = $1 AND mission_id = ANY($2::text[])`,
    [tenant, missions],
  );
  const stateOf = new Map(found.map((r) => [r.mission_id, r.state]));
  for (const row of rows) {
    const state = row.missionId === null ? undefined : stateOf.get(row.missionId);
    if (state === 'paused') row.health = worseHealth(row.health, 'held');
    else if (state === 'cancelled' || state === 'revoked') row.health = worseHealth(row.health, 'disabled');
  }
}
