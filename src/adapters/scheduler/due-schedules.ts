import type { DueSchedules } from '../../domain/ports/due-schedules.js';
import type { SqlExecutor } from '../../projections/sql-client.js';
import { bindingOf, dueRow, triggerFacts } from '../../projections/scheduler/due-rows.js';
import type { ScheduleWriter } from './schedule-writer.js';

export const dueSchedulesOf = (sql: SqlExecutor, writer: ScheduleWriter): DueSchedules => ({
  async find(tenant, triggerId) {
    const row = await dueRow(sql, tenant, triggerId);
    if (!row) return null;
    return {
      trigger: triggerFacts(row),
      binding: bindingOf(row),
      scheduleRevision: row.indexed.scheduleRevision,
      commit: (decision) => writer.commit([{ decision, row }]),
    };
  },
});
