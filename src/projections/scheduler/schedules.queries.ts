import type { SqlExecutor } from '../sql-client.js';
import type { NormalizedScheduleDefinition } from '../../domain/schedule/schedule-definition.js';
import type { InstantRange, ScheduleSnapshot, SkipCause } from '../../domain/schedule/schedule-events.js';
import { firstInstantAfter } from '../../domain/schedule/activation.js';
import { isoSql } from '../occurrences/cursor.js';

/** The operator detail's `schedule` block, and what the health row takes from it (OP-1). */
export interface ScheduleView {
  engine: string | null;
  tzdataVersion: string | null;
  boundary: string | null;
  skipped: Array<InstantRange & { cause: SkipCause }>;
  held: InstantRange[];
  nextFireAt: string | null;
}

interface ViewRow {
  trigger_id: string;
  definition: { schedule: NormalizedScheduleDefinition } | null;
  tzdata_pinned: string | null;
  epoch: number | null;
  state: ScheduleSnapshot | null;
  pending_boundary: string | null;
  skipped: Array<InstantRange & { cause: SkipCause }>;
  due_at: string | null;
}

/** Missing: not a schedule, or not folded yet. */
export async function scheduleViews(
  sql: SqlExecutor,
  tenant: string,
  triggerIds: readonly string[],
): Promise<Map<string, ScheduleView>> {
  if (triggerIds.length === 0) return new Map();
  const { rows } = await sql.query<ViewRow>(
    `SELECT trigger_id, definition, tzdata_pinned, epoch, state, skipped, ${isoSql('due_at')} AS due_at,
            CASE WHEN state_activation IS DISTINCT FROM activation
                 THEN ${isoSql(`GREATEST(activated_at, (state->>'boundary')::timestamptz)`)} END AS pending_boundary
       FROM rm_schedules WHERE tenant = $1 AND trigger_id = ANY($2::text[]) AND type = 'schedule'`,
    [tenant, [...triggerIds]],
  );
  return new Map(
    rows.map((r) => {
      const current = r.state !== null && r.state.epoch === r.epoch;
      const view: ScheduleView = {
        engine: r.definition?.schedule.engine ?? null,
        tzdataVersion: r.tzdata_pinned,
        boundary: r.pending_boundary ?? r.state?.boundary ?? null,
        skipped: r.skipped,
        held: current ? r.state!.held : [],
        // a pending activation is due at once (to be recorded); its first fire follows the activation boundary
        nextFireAt:
          r.pending_boundary !== null && r.definition
            ? firstInstantAfter(r.definition.schedule, r.pending_boundary)
            : r.due_at,
      };
      return [r.trigger_id, view];
    }),
  );
}
