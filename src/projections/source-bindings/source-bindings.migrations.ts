import type { Migration } from '../migration.js';

/** Which webhook Trigger listens to which source (WH-6: mapping from server-side configuration only). */
export const sourceBindingsMigrations: Migration[] = [
  {
    id: '0320_rm_source_bindings',
    sql: `
      CREATE TABLE IF NOT EXISTS rm_source_bindings (
        tenant       text NOT NULL,
        trigger_id   text NOT NULL,
        -- null once the Trigger's current revision is not a webhook Trigger
        source_id    text,
        -- null or []: every event type of the source
        event_types  jsonb,
        deleted      boolean NOT NULL DEFAULT false,
        revision     integer NOT NULL,
        PRIMARY KEY (tenant, trigger_id)
      );
      CREATE INDEX IF NOT EXISTS rm_source_bindings_by_source ON rm_source_bindings (tenant, source_id)`,
  },
];
