import type { SqlExecutor } from '../sql-client.js';
import { compareTzdata } from '../../domain/schedule/tzdata.js';
import type { ScheduleHealth, TriggerHealthRow } from '../trigger-health/trigger-health.view.js';
import { scheduleViews } from './schedules.queries.js';

/** The recovery actions of a held catch-up range (OP-1). */
export const heldRecovery = (triggerId: string) =>
  (['release', 'dismiss'] as const).map((action) => ({
    action,
    method: 'POST',
    href: `/v1/operator/triggers/${encodeURIComponent(triggerId)}/schedule/${action}`,
  }));

/** OP-1 for schedule Triggers: `tzdataDrift` when the running tz data differs from the pinned version (SC-7). */
export async function withScheduleHealth(
  sql: SqlExecutor,
  tenant: string,
  rows: TriggerHealthRow[],
  pinned: ReadonlyMap<string, string | null>,
  runningTzdata: string | null,
): Promise<Map<string, Omit<ScheduleHealth, 'engine' | 'tzdataVersion'>>> {
  const schedules = rows.filter((row) => row.type === 'schedule');
  const views = await scheduleViews(
    sql,
    tenant,
    schedules.map((row) => row.triggerId),
  );
  const details = new Map<string, Omit<ScheduleHealth, 'engine' | 'tzdataVersion'>>();
  for (const row of schedules) {
    row.tzdataDrift = compareTzdata(pinned.get(row.triggerId) ?? null, runningTzdata).drift;
    const view = views.get(row.triggerId);
    if (!view) continue;
    const live = row.enabled && !row.deleted;
    row.nextFireAt = live ? view.nextFireAt : null;
    if (live && view.held.length > 0) {
      row.health = 'held';
      row.recovery = [...heldRecovery(row.triggerId), ...row.recovery];
    }
    details.set(row.triggerId, { boundary: view.boundary, skipped: view.skipped, held: view.held });
  }
  return details;
}
