import type { Migration } from '../../../projections/migration.js';

export const idempotencyMigrations: Migration[] = [
  {
    id: '0100_idempotency_keys',
    sql: `
      CREATE TABLE IF NOT EXISTS idempotency_keys (
        tenant          text NOT NULL,
        key             text NOT NULL,
        operation       text NOT NULL,
        fingerprint     text NOT NULL,
        state           text NOT NULL CHECK (state IN ('in_flight', 'done')),
        -- an in-flight claim older than its lease belongs to a crashed request and may be taken over
        lease_until     timestamptz NOT NULL,
        response_status integer,
        response_body   jsonb,
        created_at      timestamptz NOT NULL DEFAULT now(),
        expires_at      timestamptz NOT NULL,
        PRIMARY KEY (tenant, key)
      );
      CREATE INDEX IF NOT EXISTS idempotency_keys_expiry ON idempotency_keys (expires_at)`,
  },
  {
    id: '0101_idempotency_key_holder',
    // Which process holds an in-flight key: a retry takes over from a process that is gone (key-holders.ts)
    sql: `ALTER TABLE idempotency_keys ADD COLUMN IF NOT EXISTS holder text`,
  },
  {
    id: '0102_idempotency_response_text',
    // The answer as it was serialized, so a replay is the same bytes: jsonb reorders an object's members.
    // response_body holds answers stored before this column (and is no longer written).
    sql: `ALTER TABLE idempotency_keys ADD COLUMN IF NOT EXISTS response_text text`,
  },
];
