import type { Migration } from '../migration.js';

/** OP-1 read model. */
export const triggerHealthMigrations: Migration[] = [
  {
    id: '0310_rm_trigger_health',
    sql: `
      CREATE TABLE IF NOT EXISTS rm_trigger_health (
        tenant              text NOT NULL,
        trigger_id          text NOT NULL,
        -- 0 until the Trigger's own TriggerRevised is folded
        revision            integer NOT NULL DEFAULT 0,
        type                text,
        mission_id          text,
        enabled             boolean NOT NULL DEFAULT false,
        deleted             boolean NOT NULL DEFAULT false,
        -- schedules only: { engine, tzdataVersion } of the current revision
        schedule            jsonb,
        observed            integer NOT NULL DEFAULT 0,
        admitted            integer NOT NULL DEFAULT 0,
        blocked             jsonb NOT NULL DEFAULT '{}'::jsonb,
        last_occurrence_id  text,
        last_status         text,
        last_reason         text,
        last_observed_at    timestamptz,
        last_fire_at        timestamptz,
        last_position       bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (tenant, trigger_id)
      );
      CREATE TABLE IF NOT EXISTS rm_trigger_health_occurrences (
        tenant         text NOT NULL,
        occurrence_id  text NOT NULL,
        trigger_id     text NOT NULL,
        status         text NOT NULL CHECK (status IN ('observed', 'admitted', 'blocked')),
        PRIMARY KEY (tenant, occurrence_id)
      );
      CREATE INDEX IF NOT EXISTS rm_trigger_health_occurrences_by_id ON rm_trigger_health_occurrences (occurrence_id)`,
  },
  {
    id: '0311_rm_trigger_health_executions',
    sql: `
      ALTER TABLE rm_trigger_health ADD COLUMN IF NOT EXISTS executions_started integer NOT NULL DEFAULT 0;
      ALTER TABLE rm_trigger_health ADD COLUMN IF NOT EXISTS executions_claimed integer NOT NULL DEFAULT 0;
      CREATE TABLE IF NOT EXISTS rm_trigger_health_executions (
        tenant        text NOT NULL,
        execution_id  text NOT NULL,
        trigger_id    text NOT NULL,
        status        text NOT NULL CHECK (status IN ('claimed', 'ended')),
        PRIMARY KEY (tenant, execution_id)
      )`,
  },
  {
    // Occurrences are now counted off the Occurrence explorer's rows, folded in the same transaction
    // under its checkpoint: the old map goes, and both read models are rebuilt from the log together.
    id: '0312_rm_trigger_health_folds_with_occurrences',
    sql: `
      DROP TABLE IF EXISTS rm_trigger_health_occurrences;
      DELETE FROM rm_trigger_health;
      DELETE FROM rm_trigger_health_executions;
      DELETE FROM rm_occurrences;
      DELETE FROM rm_occurrence_conflicts;
      DELETE FROM checkpoints WHERE name IN ('projection:occurrences', 'projection:trigger-health')`,
  },
  {
    // EX-4: executions also wait for a retry, lie dead-lettered, or are pending again after a redelivery or a
    // recovery. Each map row keeps its status and the position of the event that set it (replays change nothing).
    // Those events were skipped until now: each execution's status is set again from its last lifecycle event
    // in the log and the counters recounted from the map. Events the projection folds later are at or below
    // a row's position, so they move nothing twice.
    id: '0313_rm_trigger_health_execution_lifecycle',
    sql: `
      ALTER TABLE rm_trigger_health ADD COLUMN IF NOT EXISTS executions_retrying integer NOT NULL DEFAULT 0;
      ALTER TABLE rm_trigger_health ADD COLUMN IF NOT EXISTS executions_dead integer NOT NULL DEFAULT 0;
      ALTER TABLE rm_trigger_health ADD COLUMN IF NOT EXISTS executions_repending integer NOT NULL DEFAULT 0;
      ALTER TABLE rm_trigger_health_executions ADD COLUMN IF NOT EXISTS position bigint NOT NULL DEFAULT 0;
      ALTER TABLE rm_trigger_health_executions DROP CONSTRAINT IF EXISTS rm_trigger_health_executions_status_check;
      ALTER TABLE rm_trigger_health_executions ADD CONSTRAINT rm_trigger_health_executions_status_check
        CHECK (status IN ('pending', 'claimed', 'retrying', 'dead', 'ended'));
      DELETE FROM rm_trigger_health_executions;
      INSERT INTO rm_trigger_health_executions (tenant, execution_id, trigger_id, status, position)
      SELECT DISTINCT ON (data ->> 'tenant', data ->> 'executionId') data ->> 'tenant', data ->> 'executionId', data ->> 'triggerId',
             CASE type WHEN 'ExecutionClaimed' THEN 'claimed' WHEN 'ExecutionRetryScheduled' THEN 'retrying'
                       WHEN 'ExecutionDeadLettered' THEN 'dead'
                       WHEN 'ExecutionRedelivered' THEN 'pending' WHEN 'RecoveryRequested' THEN 'pending' ELSE 'ended' END,
             position
        FROM events
       WHERE type IN ('ExecutionClaimed', 'ExecutionCompleted', 'ExecutionRetryScheduled', 'ExecutionRedelivered',
                      'ExecutionDeadLettered', 'ExecutionSettled', 'RecoveryRequested')
       ORDER BY data ->> 'tenant', data ->> 'executionId', position DESC;
      UPDATE rm_trigger_health h SET
        executions_started = COALESCE(c.started, 0), executions_claimed = COALESCE(c.claimed, 0),
        executions_retrying = COALESCE(c.retrying, 0), executions_dead = COALESCE(c.dead, 0),
        executions_repending = COALESCE(c.pending, 0)
        FROM rm_trigger_health t
        LEFT JOIN (SELECT tenant, trigger_id, count(*)::int AS started,
                          count(*) FILTER (WHERE status = 'claimed')::int AS claimed,
                          count(*) FILTER (WHERE status = 'retrying')::int AS retrying,
                          count(*) FILTER (WHERE status = 'dead')::int AS dead,
                          count(*) FILTER (WHERE status = 'pending')::int AS pending
                     FROM rm_trigger_health_executions GROUP BY tenant, trigger_id) c
               ON c.tenant = t.tenant AND c.trigger_id = t.trigger_id
       WHERE h.tenant = t.tenant AND h.trigger_id = t.trigger_id`,
  },
  {
    // OP-1: counts by disposition and reason — Occurrences a guard or prefilter suppressed (BA-2, AD-4) are no blocks.
    id: '0314_rm_trigger_health_suppressed',
    sql: `ALTER TABLE rm_trigger_health ADD COLUMN IF NOT EXISTS suppressed jsonb NOT NULL DEFAULT '{}'::jsonb`,
  },
  {
    // OP-1, BA-1: Occurrences decided `batched`, and the executions their closed batches admitted.
    id: '0315_rm_trigger_health_batched',
    sql: `ALTER TABLE rm_trigger_health ADD COLUMN IF NOT EXISTS batched integer NOT NULL DEFAULT 0;
          ALTER TABLE rm_trigger_health ADD COLUMN IF NOT EXISTS batch_executions integer NOT NULL DEFAULT 0`,
  },
  {
    // Distinct full id from 0315_rm_trigger_health_batched (both branches took 0315); applied after it, in list order.
    // OP-1, DD-5: Occurrences coalesced into a later member of their group, by reason (`coalesced`).
    id: '0315_rm_trigger_health_coalesced',
    sql: `ALTER TABLE rm_trigger_health ADD COLUMN IF NOT EXISTS coalesced jsonb NOT NULL DEFAULT '{}'::jsonb`,
  },
  {
    // OP-1, SU-1: Occurrences delivered to a wait-for subscription were folded by the explorer only: their Trigger's
    // last Occurrence stayed 'observed'. Counted and shown from the explorer's rows, as a rebuild would.
    id: '0373_rm_trigger_health_subscribed',
    sql: `
      ALTER TABLE rm_trigger_health ADD COLUMN IF NOT EXISTS subscribed integer NOT NULL DEFAULT 0;
      UPDATE rm_trigger_health h SET subscribed = c.n
        FROM (SELECT tenant, trigger_id, count(*)::int AS n FROM rm_occurrences WHERE status = 'subscribed'
               GROUP BY tenant, trigger_id) c
       WHERE h.tenant = c.tenant AND h.trigger_id = c.trigger_id;
      UPDATE rm_trigger_health h SET last_status = 'subscribed', last_reason = NULL
        FROM rm_occurrences o
       WHERE o.tenant = h.tenant AND o.occurrence_id = h.last_occurrence_id AND o.status = 'subscribed'`,
  },
  {
    // OP-1, AD-2: each Mission's state, so a Trigger of a paused Mission shows `held` and one of a cancelled or
    // revoked Mission `disabled`. Empty for a store that predates it until each Mission is revised again;
    // `reveille projections rebuild` fills it from the log at once.
    id: '0382_rm_trigger_health_missions',
    sql: `
      CREATE TABLE IF NOT EXISTS rm_trigger_health_missions (
        tenant     text NOT NULL,
        mission_id text NOT NULL,
        state      text NOT NULL,
        PRIMARY KEY (tenant, mission_id)
      )`,
  },
  {
    // OP-4: what a Trigger counted before its type changed stays counted under that kind, so the per-kind totals of
    // `reveille_occurrences_total` never go down. `*_moved` is the part of a row's counts already filed by kind in
    // rm_trigger_health_kind_moves. An existing store files nothing until a Trigger's type changes again.
    id: '0390_rm_trigger_health_kind_moves',
    sql: `
      ALTER TABLE rm_trigger_health ADD COLUMN IF NOT EXISTS observed_moved bigint NOT NULL DEFAULT 0;
      ALTER TABLE rm_trigger_health ADD COLUMN IF NOT EXISTS admitted_moved bigint NOT NULL DEFAULT 0;
      ALTER TABLE rm_trigger_health ADD COLUMN IF NOT EXISTS blocked_moved bigint NOT NULL DEFAULT 0;
      CREATE TABLE IF NOT EXISTS rm_trigger_health_kind_moves (
        kind     text PRIMARY KEY,
        observed bigint NOT NULL DEFAULT 0,
        admitted bigint NOT NULL DEFAULT 0,
        blocked  bigint NOT NULL DEFAULT 0
      )`,
  },
];
