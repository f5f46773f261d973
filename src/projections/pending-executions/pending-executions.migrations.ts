import type { Migration } from '../migration.js';

/** Executions not yet terminal, in acceptance order: what `claim-next` hands out (EX-2, AD-5). */
export const pendingExecutionsMigrations: Migration[] = [
  {
    id: '0330_rm_pending_executions',
    sql: `
      CREATE TABLE IF NOT EXISTS rm_pending_executions (
        execution_id   text PRIMARY KEY,
        tenant         text NOT NULL,
        mission_id     text NOT NULL,
        trigger_id     text NOT NULL,
        lane           text NOT NULL,
        -- the log position of OccurrenceAdmitted: acceptance order
        position       bigint NOT NULL,
        claimed        boolean NOT NULL DEFAULT false,
        -- counts against the Mission's maxConcurrent: claimed, or a slot taken at admission (opt-in block)
        holds_slot     boolean NOT NULL,
        max_concurrent integer NOT NULL
      );
      CREATE INDEX IF NOT EXISTS rm_pending_executions_unclaimed ON rm_pending_executions (tenant, position) WHERE NOT claimed;
      CREATE INDEX IF NOT EXISTS rm_pending_executions_by_lane ON rm_pending_executions (tenant, lane, position);
      CREATE INDEX IF NOT EXISTS rm_pending_executions_slots ON rm_pending_executions (tenant, mission_id) WHERE holds_slot`,
  },
];
