import type { SqlExecutor } from '../sql-client.js';
import { decodeCursor, encodeCursor, isoSql } from '../occurrences/cursor.js';
import { listOccurrences, type OccurrenceView, type Page } from '../occurrences/occurrences.queries.js';
import { withPollHealth } from '../poll/poll-health.js';
import { withMissionHealth } from './mission-health.js';
import { withScheduleHealth } from '../scheduler/schedule-health.js';
import {
  type ScheduleHealth,
  type TriggerHealth,
  type TriggerHealthDetail,
  type TriggerHealthRow,
  worseHealth,
} from './trigger-health.view.js';

/** The Trigger's own machinery in trouble, unlike business outcomes (budget, scope) working as meant. */
export const DEGRADING_REASONS: readonly string[] = ['filter_inconclusive', 'guard_fault', 'key_revoked'];

interface HealthRow {
  trigger_id: string;
  revision: number;
  type: string | null;
  mission_id: string | null;
  enabled: boolean;
  deleted: boolean;
  schedule: { engine: string | null; tzdataVersion: string | null } | null;
  observed: number;
  admitted: number;
  batched: number;
  batch_executions: number;
  blocked: Record<string, number>;
  suppressed: Record<string, number>;
  coalesced: Record<string, number>;
  subscribed: number;
  executions_started: number;
  executions_claimed: number;
  executions_retrying: number;
  executions_dead: number;
  executions_repending: number;
  last_occurrence_id: string | null;
  last_status: string | null;
  last_reason: string | null;
  last_observed_at: string | null;
  last_fire_at: string | null;
}

const SELECT = `SELECT trigger_id, revision, type, mission_id, enabled, deleted, schedule, observed, admitted, blocked, suppressed, batched, batch_executions, coalesced, subscribed, executions_started, executions_claimed,
  executions_retrying, executions_dead, executions_repending,
  last_occurrence_id, last_status, last_reason, ${isoSql('last_observed_at')} AS last_observed_at, ${isoSql('last_fire_at')} AS last_fire_at
  FROM rm_trigger_health`;

const CURSOR_LIST = 'triggers';
export const RECENT_OCCURRENCES = 10;

export function healthOf(
  row: Pick<HealthRow, 'enabled' | 'deleted' | 'last_status' | 'last_reason' | 'executions_dead'>,
): TriggerHealth {
  if (!row.enabled || row.deleted) return 'disabled';
  // EX-4: work the Trigger admitted will not run until an operator recovers it.
  if (Number(row.executions_dead) > 0) return 'degraded';
  if (row.last_status === 'blocked' && row.last_reason !== null && DEGRADING_REASONS.includes(row.last_reason))
    return 'degraded';
  return 'ok';
}

/**
 * OP-1: a source whose latest delivery failed authentication has failed every delivery since its last success:
 * nothing reaches the Trigger until its sender or its keys are fixed. Kept beside the log (ingress counts), so both
 * Trigger routes apply it to the row the read models gave, and a rebuild of those changes nothing here.
 */
export function healthWithAuth(health: TriggerHealth, auth: { lastResult: string } | null): TriggerHealth {
  return auth?.lastResult === 'failed' ? worseHealth(health, 'failing') : health;
}

/**
 * EX-4: one link to the Trigger's dead letters rather than a recover link per execution: a health row stays
 * bounded however many died, and each dead-letter row carries its own `recover` action (POST with a reason).
 */
export const deadLetterRecovery = (triggerId: string) => [
  {
    action: 'recover_dead_letters',
    method: 'GET',
    href: `/v1/operator/dead-letters?triggerId=${encodeURIComponent(triggerId)}`,
  },
];

function toRow(row: HealthRow): TriggerHealthRow {
  const admitted = Number(row.admitted);
  const last =
    row.last_occurrence_id !== null && row.last_status !== null && row.last_observed_at !== null
      ? {
          occurrenceId: row.last_occurrence_id,
          status: row.last_status,
          reason: row.last_reason,
          observedAt: row.last_observed_at,
        }
      : null;
  return {
    triggerId: row.trigger_id,
    revision: row.revision,
    type: row.type,
    missionId: row.mission_id,
    // A deleted Trigger runs nothing, whatever its last live revision said.
    enabled: row.enabled && !row.deleted,
    deleted: row.deleted,
    health: healthOf(row),
    nextFireAt: null,
    lastFireAt: row.last_fire_at,
    lastOccurrence: last,
    counts: {
      observed: Number(row.observed),
      admitted,
      blocked: row.blocked,
      suppressed: row.suppressed,
      batched: Number(row.batched),
      coalesced: row.coalesced,
      subscribed: Number(row.subscribed),
      duplicate: 0,
    },
    executions: {
      // BA-1: a closed batch admits one execution for all its `batched` members.
      pending: Math.max(
        0,
        admitted + Number(row.batch_executions) - Number(row.executions_started) + Number(row.executions_repending),
      ),
      claimed: Number(row.executions_claimed),
      retrying: Number(row.executions_retrying),
      dead: Number(row.executions_dead),
    },
    tzdataDrift: false,
    recovery: Number(row.executions_dead) > 0 ? deadLetterRecovery(row.trigger_id) : [],
  };
}

/** By triggerId ascending; throws InvalidCursor on a foreign cursor. */
export async function listTriggerHealth(
  sql: SqlExecutor,
  tenant: string,
  page: { limit: number; cursor?: string },
  runningTzdata = process.versions.tz ?? null,
): Promise<Page<TriggerHealthRow>> {
  const after = page.cursor === undefined ? null : decodeCursor(CURSOR_LIST, page.cursor, 1)[0];
  const { rows } = await sql.query<HealthRow>(
    `${SELECT} WHERE tenant = $1 AND ($2::text IS NULL OR trigger_id > $2::text) ORDER BY trigger_id LIMIT $3`,
    [tenant, after ?? null, page.limit + 1],
  );
  const items = rows.slice(0, page.limit).map(toRow);
  await withScheduleHealth(sql, tenant, items, pinnedTzdata(rows), runningTzdata);
  await withPollHealth(sql, tenant, items);
  await withMissionHealth(sql, tenant, items);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > page.limit && last ? encodeCursor(CURSOR_LIST, [last.triggerId]) : null };
}

/** `runningTzdata` is this process's tz data; SC-7 drift is measured against it. */
export async function getTriggerHealth(
  sql: SqlExecutor,
  tenant: string,
  triggerId: string,
  runningTzdata = process.versions.tz ?? null,
): Promise<TriggerHealthDetail | null> {
  const { rows } = await sql.query<HealthRow>(`${SELECT} WHERE tenant = $1 AND trigger_id = $2`, [tenant, triggerId]);
  const row = rows[0];
  if (!row) return null;
  const recent = await listOccurrences(sql, tenant, { triggerId, limit: RECENT_OCCURRENCES });
  const detail: TriggerHealthDetail = { ...toRow(row), recentOccurrences: recent.items };
  const schedules = await withScheduleHealth(sql, tenant, [detail], pinnedTzdata([row]), runningTzdata);
  await withPollHealth(sql, tenant, [detail]);
  await withMissionHealth(sql, tenant, [detail]);
  if (row.type === 'schedule') {
    const found = schedules.get(triggerId) ?? { boundary: null, skipped: [], held: [] };
    detail.schedule = {
      engine: row.schedule?.engine ?? null,
      tzdataVersion: row.schedule?.tzdataVersion ?? null,
      ...found,
    };
  }
  return detail;
}

function pinnedTzdata(rows: readonly HealthRow[]): Map<string, string | null> {
  return new Map(rows.map((row) => [row.trigger_id, row.schedule?.tzdataVersion ?? null]));
}
