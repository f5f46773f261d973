import { existsSync } from 'node:fs';
import { ensureDataDir } from '../config/data-dir.js';
import { join } from 'node:path';
import type { ReveilleConfig } from '../config/config.js';
import { AppendSignal } from '../../projections/runner/append-signal.js';
import type { EventStore } from '../../domain/ports/event-store.js';
import { type Migration } from '../../projections/migration.js';
import { pendingMigrations, runMigrations } from './sql/migrations.js';
import { restoreDeferredIndexes } from '../../projections/runner/deferred-indexes.js';
import { PgSqlClient } from './sql/pg-sql-client.js';
import { lockDataDir } from './sql/data-dir-lock.js';
import { PgliteSqlClient } from './sql/pglite-sql-client.js';
import type { SqlClient } from '../../projections/sql-client.js';
import { SqlEventStore } from './sql/sql-event-store.js';
import { UpcasterRegistry } from './upcasters.js';

export interface Infrastructure {
  sql: SqlClient;
  store: EventStore;
  signal: AppendSignal;
  upcasters: UpcasterRegistry;
  close(): Promise<void>;
}

/** The configured database, schema or data directory holds no Reveille store (or an outdated one): nothing to read. */
export class NoStoreHere extends Error {
  override readonly name = 'NoStoreHere';
}

export async function openSqlClient(config: ReveilleConfig, options: { create?: boolean } = {}): Promise<SqlClient> {
  if (config.databaseUrl)
    return PgSqlClient.connect({
      connectionString: config.databaseUrl,
      schema: config.databaseSchema ?? undefined,
      max: config.databasePool,
      createSchema: options.create,
    });
  const pgdata = join(config.dataDir, 'pgdata');
  if (options.create === false && !existsSync(pgdata))
    throw new NoStoreHere(`no Reveille store in ${config.dataDir} (no embedded database); check REVEILLE_DATA_DIR`);
  ensureDataDir(config.dataDir);
  // Before PGlite touches the files: a second process on them would corrupt the store.
  return PgliteSqlClient.open(pgdata, lockDataDir(config.dataDir));
}

/**
 * A store that exists and is up to date, opened without creating or migrating anything: for commands that check
 * what is there (`audit verify`). An empty or typo'd schema, database or data directory is refused (NoStoreHere).
 */
export async function openExistingInfrastructure(
  config: ReveilleConfig,
  migrations: Migration[],
): Promise<Infrastructure> {
  const sql = await openSqlClient(config, { create: false });
  const where = config.databaseUrl
    ? `schema ${config.databaseSchema ?? 'public'} of DATABASE_URL`
    : `the embedded store in ${config.dataDir}`;
  try {
    const pending = await pendingMigrations(sql, migrations).catch((error: unknown) => {
      // PostgreSQL's invalid_catalog_name: DATABASE_URL names a database that does not exist
      if ((error as { code?: unknown } | null)?.code === '3D000')
        throw new NoStoreHere(`no Reveille store: ${(error as Error).message}; check DATABASE_URL`);
      throw error;
    });
    if (pending === null)
      throw new NoStoreHere(
        `no Reveille store in ${where} (no schema_migrations table); check DATABASE_URL, REVEILLE_DB_SCHEMA and REVEILLE_DATA_DIR`,
      );
    if (pending.length > 0)
      throw new NoStoreHere(
        `${where} lacks ${pending.length} migration(s) of this version (first ${pending[0]}); run reveille migrate first`,
      );
  } catch (error) {
    await sql.close();
    throw error;
  }
  return openInfrastructure(config, [], { sql });
}

export async function openInfrastructure(
  config: ReveilleConfig,
  migrations: Migration[],
  options: { sql?: SqlClient } = {},
): Promise<Infrastructure> {
  const sql = options.sql ?? (await openSqlClient(config));
  await runMigrations(sql, migrations);
  // The process that brings the schema up to date also builds what a rebuild that died left deferred.
  if (migrations.length > 0) await restoreDeferredIndexes(sql);
  const signal = new AppendSignal();
  const upcasters = new UpcasterRegistry();
  const store = config.eventstoreUrl
    ? await openEventStoreDb(config.eventstoreUrl, upcasters)
    : new SqlEventStore(sql, upcasters, signal);
  return {
    sql,
    store,
    signal,
    upcasters,
    close: async () => {
      if (store.kind === 'eventstoredb') await store.close();
      await sql.close();
    },
  };
}

async function openEventStoreDb(url: string, upcasters: UpcasterRegistry): Promise<EventStore> {
  const { EsdbEventStore } = await import('./esdb/esdb-event-store.js');
  return EsdbEventStore.connect(url, upcasters);
}
