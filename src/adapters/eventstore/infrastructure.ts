import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ReveilleConfig } from '../config/config.js';
import { AppendSignal } from '../../projections/runner/append-signal.js';
import type { EventStore } from '../../domain/ports/event-store.js';
import { type Migration } from '../../projections/migration.js';
import { runMigrations } from './sql/migrations.js';
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

export async function openSqlClient(config: ReveilleConfig): Promise<SqlClient> {
  if (config.databaseUrl)
    return PgSqlClient.connect({
      connectionString: config.databaseUrl,
      schema: config.databaseSchema ?? undefined,
      max: config.databasePool,
    });
  mkdirSync(config.dataDir, { recursive: true });
  // Before PGlite touches the files: a second process on them would corrupt the store.
  return PgliteSqlClient.open(join(config.dataDir, 'pgdata'), lockDataDir(config.dataDir));
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
