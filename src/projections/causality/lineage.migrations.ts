import type { Migration } from '../migration.js';

/**
 * OP-2, CA-1: one row per (Occurrence, ancestor reference) of a recorded ancestry, so an Occurrence's descendants
 * are an index range instead of a scan of every chain. Bounded: an ancestry holds at most MAX_ANCESTRY_ENTRIES.
 */
export const lineageMigrations: Migration[] = [
  {
    id: '0385_rm_causal_lineage',
    sql: `
      CREATE TABLE IF NOT EXISTS rm_causal_lineage (
        tenant               text NOT NULL,
        occurrence_id        text NOT NULL,
        -- 1: the nearest reference (the parent Operation), counting back to the root
        distance             integer NOT NULL,
        ancestor_kind        text NOT NULL CHECK (ancestor_kind IN ('occurrence', 'operation')),
        ancestor_id          text NOT NULL,
        ancestor_trigger_id  text NOT NULL,
        trigger_id           text NOT NULL,
        parent_id            text,
        depth                integer NOT NULL,
        position             bigint NOT NULL,
        PRIMARY KEY (tenant, occurrence_id, distance)
      );
      CREATE INDEX IF NOT EXISTS rm_causal_lineage_descendants
        ON rm_causal_lineage (tenant, ancestor_kind, ancestor_id, distance, position);
      -- CA-2: the correlation index as a read model, (tenant, source, key) to the Operation that reserved it. The
      -- ingress links from the key's correlation stream (never lagging); this serves the operator's views.
      CREATE TABLE IF NOT EXISTS rm_causal_operations (
        tenant           text NOT NULL,
        source_id        text NOT NULL,
        correlation_key  text NOT NULL,
        operation_id     text NOT NULL,
        execution_id     text NOT NULL,
        occurrence_id    text NOT NULL,
        trigger_id       text NOT NULL,
        child_depth      integer NOT NULL,
        recorded_at      timestamptz NOT NULL,
        position         bigint NOT NULL,
        PRIMARY KEY (tenant, source_id, correlation_key)
      );
      CREATE INDEX IF NOT EXISTS rm_causal_operations_by_occurrence ON rm_causal_operations (tenant, occurrence_id, position)`,
  },
];
