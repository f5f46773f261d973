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
  {
    // EX-4 timers: a delivery not claimed by `claim_by` is delivered again; a retry waits until `next_attempt_at`
    // (a retrying row is neither claimable nor holding a slot). `claim_within` is the request's claim window.
    // `rm_pending_frees`: when a full Mission gave a slot back, or a resource lane's head ended, so a delivery
    // that waited for it gets a whole claim window from then instead of being redelivered (or dead-lettered) at
    // once. Rows folded before this migration have no `claim_by` and are left to their consumers; `reveille
    // projections rebuild` gives them one.
    id: '0331_rm_pending_executions_timers',
    sql: `
      ALTER TABLE rm_pending_executions
        ADD COLUMN IF NOT EXISTS claim_by        timestamptz,
        ADD COLUMN IF NOT EXISTS claim_within    double precision NOT NULL DEFAULT 60,
        ADD COLUMN IF NOT EXISTS next_attempt_at timestamptz;
      CREATE INDEX IF NOT EXISTS rm_pending_executions_retry_due ON rm_pending_executions (next_attempt_at)
        WHERE next_attempt_at IS NOT NULL;
      CREATE INDEX IF NOT EXISTS rm_pending_executions_claim_due ON rm_pending_executions (claim_by)
        WHERE NOT claimed AND next_attempt_at IS NULL;
      CREATE TABLE IF NOT EXISTS rm_pending_frees (
        tenant   text NOT NULL,
        -- 'mission:<missionId>' or 'lane:<lane>'
        scope    text NOT NULL,
        freed_at timestamptz NOT NULL,
        PRIMARY KEY (tenant, scope)
      )`,
  },
  {
    // Claim-next reads candidates in acceptance order and stops at its limit only if an index yields exactly
    // them in that order. With the statistics of a table that grew in a burst (still analyzed as empty), the
    // planner otherwise combined two indexes into a bitmap of every unclaimed row and sorted it: each claim
    // read the whole backlog (≈ 600 buffers and 2.4 ms a call at 2,000 queued).
    id: '0332_rm_pending_executions_claimable',
    sql: `
      CREATE INDEX IF NOT EXISTS rm_pending_executions_claimable ON rm_pending_executions (tenant, position)
        WHERE NOT claimed AND next_attempt_at IS NULL;
      DROP INDEX IF EXISTS rm_pending_executions_unclaimed`,
  },
  {
    // AD-2: each Mission's state, so claim-next passes over work of a Mission that runs none now (a claim asks the
    // Mission's stream itself) and the timers hold a paused Mission's work instead of spending its attempts. Empty
    // for a store that predates it, as if every Mission were active, until each is revised again; `reveille
    // projections rebuild --name pending-executions` fills it from the log at once.
    id: '0381_rm_pending_missions',
    sql: `
      CREATE TABLE IF NOT EXISTS rm_pending_missions (
        tenant     text NOT NULL,
        mission_id text NOT NULL,
        state      text NOT NULL,
        PRIMARY KEY (tenant, mission_id)
      );`,
  },
];
