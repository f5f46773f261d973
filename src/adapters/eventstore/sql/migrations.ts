import type { Migration } from '../../../projections/migration.js';
import type { SqlClient } from '../../../projections/sql-client.js';
import { deferredIndexesMigration } from '../../../projections/runner/deferred-indexes.js';

export const eventStoreMigrations: Migration[] = [
  {
    id: '0001_events',
    sql: `
      CREATE TABLE IF NOT EXISTS events (
        position        bigserial PRIMARY KEY,
        -- xid of the writing transaction: readers only pass events below the oldest in-flight xid
        transaction_id  xid8 NOT NULL DEFAULT pg_current_xact_id(),
        event_id        uuid NOT NULL UNIQUE,
        stream_id       text NOT NULL,
        revision        integer NOT NULL,
        type            text NOT NULL,
        schema_version  integer NOT NULL,
        data            jsonb NOT NULL,
        metadata        jsonb NOT NULL,
        recorded_at     timestamptz NOT NULL,
        hash            text NOT NULL,
        prev_hash       text,
        UNIQUE (stream_id, revision)
      );
      CREATE INDEX IF NOT EXISTS events_log_order ON events (transaction_id, position);
      CREATE TABLE IF NOT EXISTS checkpoints (
        name        text PRIMARY KEY,
        position    bigint NOT NULL,
        updated_at  timestamptz NOT NULL DEFAULT now()
      );`,
  },
  {
    // Event data past ≈ 2 KB (payloads) is compressed on every append and decompressed on every read that strips
    // it: lz4 does both several times faster than pglz. Servers built without lz4 (PGlite) keep pglz.
    id: '0002_events_data_lz4',
    sql: `ALTER TABLE events ALTER COLUMN data SET COMPRESSION lz4`,
    onlyIf: `SELECT coalesce(bool_or('lz4' = ANY(enumvals)), false) AS ok FROM pg_settings WHERE name = 'default_toast_compression'`,
  },
  deferredIndexesMigration,
];

const LOCK_KEY = 727_271_001; // any constant: serializes concurrent migrators of one database

export async function runMigrations(
  client: SqlClient,
  migrations: Migration[],
  onApplied?: (id: string) => void,
): Promise<string[]> {
  await client.exec(
    `CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  const applied: string[] = [];
  for (const migration of migrations) {
    const done = await client.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
      const seen = await tx.query('SELECT 1 FROM schema_migrations WHERE id = $1', [migration.id]);
      if (seen.rows.length > 0) return false;
      if (migration.onlyIf && (await tx.query<{ ok: boolean }>(migration.onlyIf)).rows[0]?.ok !== true) return false;
      for (const statement of splitStatements(migration.sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (id) VALUES ($1)', [migration.id]);
      return true;
    });
    if (done) {
      applied.push(migration.id);
      onApplied?.(migration.id);
    }
  }
  return applied;
}

/**
 * What `runMigrations` would apply, without applying anything; null when the schema holds no Reveille store at all
 * (no schema_migrations table: a typo'd or empty schema or database).
 */
export async function pendingMigrations(client: SqlClient, migrations: Migration[]): Promise<string[] | null> {
  const table = await client.query<{ found: string | null }>(`SELECT to_regclass('schema_migrations')::text AS found`);
  if (!table.rows[0]?.found) return null;
  const { rows } = await client.query<{ id: string }>('SELECT id FROM schema_migrations');
  const seen = new Set(rows.map((row) => row.id));
  const pending: string[] = [];
  for (const migration of migrations) {
    if (seen.has(migration.id)) continue;
    if (migration.onlyIf && (await client.query<{ ok: boolean }>(migration.onlyIf)).rows[0]?.ok !== true) continue;
    pending.push(migration.id);
  }
  return pending;
}

/** Migrations are plain DDL without dollar-quoted bodies: drop `--` comments, then split on `;`. */
function splitStatements(sql: string): string[] {
  return sql
    .replace(/--[^\n]*/g, '')
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
