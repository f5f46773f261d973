import type { Migration } from '../migration.js';

/** OP-1/EX-4: one row per execution, from its admission through every lifecycle event; never the payload. */
export const executionsMigrations: Migration[] = [
  {
    id: '0340_rm_executions',
    sql: `
      CREATE TABLE IF NOT EXISTS rm_executions (
        tenant              text NOT NULL,
        execution_id        text NOT NULL,
        occurrence_id       text NOT NULL,
        trigger_id          text NOT NULL,
        mission_id          text NOT NULL,
        lane                text NOT NULL,
        status              text NOT NULL CHECK (status IN
                              ('pending', 'claimed', 'retrying', 'completed', 'failed', 'noncommitted', 'dead_lettered')),
        generation          integer NOT NULL,
        attempt             integer NOT NULL,
        -- the current claim (null unless claimed); the last fence handed out stays in fence
        consumer_id         text,
        claimed_at          timestamptz,
        fence               integer,
        next_attempt_at     timestamptz,
        last_error          jsonb,
        -- the last completion: { fence, outcome, retryable, at } (the receipt stays on the detail view)
        completion          jsonb,
        -- the noncommit tombstone: { settlementId, decision, at }
        settlement          jsonb,
        dead_reason         text,
        dead_attempts       integer,
        dead_lettered_at    timestamptz,
        -- EX-5: from the admitting revision's delivery policy, so overdue needs no lookup
        max_runtime_seconds integer,
        admitted_at         timestamptz NOT NULL,
        -- the log position of OccurrenceAdmitted: acceptance order, and the list's sort key
        admitted_position   bigint NOT NULL,
        -- the last event folded: an execution's events have growing positions, so older ones are replays
        last_position       bigint NOT NULL,
        PRIMARY KEY (tenant, execution_id)
      );
      CREATE UNIQUE INDEX IF NOT EXISTS rm_executions_by_position ON rm_executions (tenant, admitted_position);
      CREATE INDEX IF NOT EXISTS rm_executions_by_status ON rm_executions (tenant, status, admitted_position);
      CREATE INDEX IF NOT EXISTS rm_executions_by_trigger ON rm_executions (tenant, trigger_id, admitted_position);
      CREATE INDEX IF NOT EXISTS rm_executions_by_mission ON rm_executions (tenant, mission_id, admitted_position)`,
  },
];
