import type { Migration } from '../migration.js';

/** OP-2 read model: one row per Occurrence, plus the conflict deliveries counted once each. */
export const occurrencesMigrations: Migration[] = [
  {
    id: '0300_rm_occurrences',
    sql: `
      CREATE TABLE IF NOT EXISTS rm_occurrences (
        tenant             text NOT NULL,
        occurrence_id      text NOT NULL,
        trigger_id         text NOT NULL,
        trigger_revision   integer NOT NULL,
        mission_id         text NOT NULL,
        kind               text NOT NULL,
        status             text NOT NULL CHECK (status IN ('observed', 'admitted', 'blocked')),
        reason             text,
        auth               jsonb NOT NULL,
        external_id        text,
        observed_at        timestamptz NOT NULL,
        scheduled_at       timestamptz,
        fired_at           timestamptz,
        decided_at         timestamptz,
        dedupe_identity    jsonb NOT NULL,
        execution_id       text,
        causal             jsonb NOT NULL,
        -- what was observed (digest, resource refs, classification): never the input body
        evidence           jsonb NOT NULL,
        -- the admission policy's evidence when blocked
        decision_evidence  jsonb,
        conflicts          integer NOT NULL DEFAULT 0,
        last_position      bigint NOT NULL,
        PRIMARY KEY (tenant, occurrence_id)
      );
      CREATE INDEX IF NOT EXISTS rm_occurrences_by_id ON rm_occurrences (occurrence_id);
      CREATE INDEX IF NOT EXISTS rm_occurrences_by_time ON rm_occurrences (tenant, observed_at DESC, occurrence_id DESC);
      CREATE INDEX IF NOT EXISTS rm_occurrences_by_trigger ON rm_occurrences (tenant, trigger_id, observed_at DESC, occurrence_id DESC);
      CREATE TABLE IF NOT EXISTS rm_occurrence_conflicts (
        event_id            uuid PRIMARY KEY,
        tenant              text NOT NULL,
        occurrence_id       text NOT NULL,
        conflicting_digest  text NOT NULL,
        at                  timestamptz NOT NULL
      )`,
  },
  {
    // WH-8 backpressure counts undecided Occurrences per source twice a second: only those rows, not the whole history.
    id: '0301_rm_occurrences_outstanding',
    sql: `CREATE INDEX IF NOT EXISTS rm_occurrences_outstanding ON rm_occurrences (tenant, (auth->>'sourceId')) WHERE status = 'observed'`,
  },
  {
    // WH-8 now reads a counter, so the status index goes: its dead entries made the count slower the longer
    // a burst lasted, and it cost an index entry per insert.
    id: '0302_rm_outstanding',
    sql: `
      CREATE TABLE IF NOT EXISTS rm_outstanding (
        tenant     text NOT NULL,
        source_id  text NOT NULL,
        undecided  integer NOT NULL,
        PRIMARY KEY (tenant, source_id)
      );
      INSERT INTO rm_outstanding (tenant, source_id, undecided)
        SELECT tenant, auth->>'sourceId', count(*) FROM rm_occurrences
         WHERE status = 'observed' AND auth->>'sourceId' IS NOT NULL GROUP BY 1, 2
        ON CONFLICT (tenant, source_id) DO NOTHING;
      DROP INDEX IF EXISTS rm_occurrences_outstanding`,
  },
  {
    // BA-2/AD-4: a guard or prefilter decides an Occurrence `suppressed` (OccurrenceSuppressed), which is no block.
    id: '0303_rm_occurrences_suppressed',
    sql: `
      ALTER TABLE rm_occurrences DROP CONSTRAINT IF EXISTS rm_occurrences_status_check;
      ALTER TABLE rm_occurrences ADD CONSTRAINT rm_occurrences_status_check
        CHECK (status IN ('observed', 'admitted', 'blocked', 'suppressed'))`,
  },
  {
    // DD-5, BA-1, SU-1: coalescing, batching and wait-for subscriptions each decide an Occurrence with a status of its own.
    id: '0304_rm_occurrences_all_statuses',
    sql: `
      ALTER TABLE rm_occurrences DROP CONSTRAINT IF EXISTS rm_occurrences_status_check;
      ALTER TABLE rm_occurrences ADD CONSTRAINT rm_occurrences_status_check
        CHECK (status IN ('observed', 'admitted', 'blocked', 'suppressed', 'coalesced', 'batched', 'subscribed'))`,
  },
  {
    // Every row is written twice: observed, then decided (no indexed column changes). Room left on each page lets
    // the decision's new row version stay on its page (a HOT update) instead of adding an entry to all four indexes.
    id: '0305_rm_occurrences_fillfactor',
    sql: `ALTER TABLE rm_occurrences SET (fillfactor = 50)`,
  },
];
