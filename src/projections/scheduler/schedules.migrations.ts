import type { Migration } from '../migration.js';

/** SC-5/SC-6 at scale: the materializer decides from a row without reading streams, and looks again at `due_at`. */
export const schedulesMigrations: Migration[] = [
  {
    id: '0320_rm_schedules',
    sql: `
      CREATE TABLE IF NOT EXISTS rm_schedules (
        tenant             text NOT NULL,
        trigger_id         text NOT NULL,
        type               text,
        trigger_revision   integer NOT NULL DEFAULT 0,
        mission_id         text,
        enabled            boolean NOT NULL DEFAULT false,
        deleted            boolean NOT NULL DEFAULT false,
        -- { schedule, classification } of the current revision
        definition         jsonb,
        tzdata_pinned      text,
        epoch              integer,
        activation         integer,
        activated_at       timestamptz,
        schedule_revision  integer NOT NULL DEFAULT -1,
        -- the last ScheduleMaterialized snapshot (epoch, activation, boundary, nextDueAt, held, ...)
        state              jsonb,
        state_activation   integer,
        state_next_due_at  timestamptz,
        -- log position of the last event that changed the recorded state: every writer's compare-and-set token
        state_position     bigint NOT NULL DEFAULT 0,
        -- instants fired since the last ScheduleMaterialized (routine fires append no schedule event)
        routine_instants   integer NOT NULL DEFAULT 0,
        -- the newest skipped ranges, oldest first (operator view)
        skipped            jsonb NOT NULL DEFAULT '[]'::jsonb,
        due_at             timestamptz GENERATED ALWAYS AS (
                             CASE WHEN type IS DISTINCT FROM 'schedule' OR deleted OR NOT enabled THEN NULL
                                  -- a new activation is recorded at once, not at its first instant, so it never
                                  -- adds to the work due at an instant
                                  WHEN state_activation IS DISTINCT FROM activation THEN activated_at
                                  ELSE state_next_due_at END) STORED,
        last_position      bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (tenant, trigger_id)
      );
      CREATE INDEX IF NOT EXISTS rm_schedules_due ON rm_schedules (due_at, tenant, trigger_id) WHERE due_at IS NOT NULL`,
  },
];
