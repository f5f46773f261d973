import type { Migration } from '../migration.js';

/**
 * `rm_polls` is the read model of poll Triggers and their poll state (rebuilt from the log). `poll_due` is not
 * derived from the log and survives a rebuild: the poll loop's own schedule and lease per Trigger, compared and
 * set against the database clock, so several processes poll each Trigger once per interval (PO-3).
 */
export const pollsMigrations: Migration[] = [
  {
    id: '0370_rm_polls',
    sql: `
      CREATE TABLE IF NOT EXISTS rm_polls (
        tenant            text NOT NULL,
        trigger_id        text NOT NULL,
        trigger_revision  integer NOT NULL DEFAULT 0,
        -- a poll Trigger that is enabled and not deleted: the loop polls it
        active            boolean NOT NULL DEFAULT false,
        -- the poll stream's last state (PollState) and its seq: a replayed event never moves it back
        poll_seq          integer NOT NULL DEFAULT 0,
        state             jsonb,
        last_position     bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (tenant, trigger_id)
      );
      CREATE INDEX IF NOT EXISTS rm_polls_active ON rm_polls (tenant, trigger_id) WHERE active;
      CREATE TABLE IF NOT EXISTS poll_due (
        tenant        text NOT NULL,
        trigger_id    text NOT NULL,
        next_poll_at  timestamptz NOT NULL,
        -- while set and in the future, one poller owns the Trigger's poll
        lease_until   timestamptz,
        lease_token   text,
        claimed_at    timestamptz,
        PRIMARY KEY (tenant, trigger_id)
      )`,
  },
  {
    // The Trigger revision whose interval set next_poll_at: a later revision is looked at again (poll-due.ts).
    id: '0371_poll_due_revision',
    sql: `ALTER TABLE poll_due ADD COLUMN IF NOT EXISTS due_revision integer`,
  },
  {
    // The revision of the Trigger's last deletion: a poll state of an earlier life (its `life`, the Trigger's
    // createdRevision, at or below it) is never the row's. Rows folded before it knew no lives: rebuilt from the log.
    id: '0372_rm_polls_deleted_revision',
    sql: `
      ALTER TABLE rm_polls ADD COLUMN IF NOT EXISTS deleted_revision integer NOT NULL DEFAULT 0;
      DELETE FROM rm_polls;
      DELETE FROM checkpoints WHERE name = 'projection:polls'`,
  },
  {
    // OP-1: poll items seen again (`duplicate` dispositions), which the Trigger's `counts.duplicate` shows with its
    // webhook redeliveries. A store that predates it counts from then on; `reveille projections rebuild --name polls`
    // counts the whole log's at once.
    id: '0386_rm_polls_duplicates',
    sql: `ALTER TABLE rm_polls ADD COLUMN IF NOT EXISTS duplicates bigint NOT NULL DEFAULT 0`,
  },
];
