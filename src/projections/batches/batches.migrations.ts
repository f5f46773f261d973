import type { Migration } from '../migration.js';

/** `rm_open_batches`: every open batch and its deadline (BA-1), what the batch closer's timer waits for. */
export const batchesMigrations: Migration[] = [
  {
    id: '0380_rm_open_batches',
    sql: `
      CREATE TABLE IF NOT EXISTS rm_open_batches (
        batch_id      text PRIMARY KEY,
        batch_stream  text NOT NULL,
        tenant        text NOT NULL,
        trigger_id    text NOT NULL,
        opened_at     timestamptz NOT NULL,
        -- null: only its size closes it (inside the admission that fills it)
        deadline      timestamptz,
        last_position bigint NOT NULL
      );
      CREATE INDEX IF NOT EXISTS rm_open_batches_deadline ON rm_open_batches (deadline) WHERE deadline IS NOT NULL`,
  },
];
