import { randomBytes } from 'node:crypto';
import { PgSqlClient } from '../../src/adapters/eventstore/sql/pg-sql-client.js';
import { type Migration } from '../../src/projections/migration.js';
import { runMigrations } from '../../src/adapters/eventstore/sql/migrations.js';
import type { SqlClient } from '../../src/projections/sql-client.js';
import { freshEmbeddedStore } from './embedded-store.js';

/** The machine's real PostgreSQL; tests never mock it. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh schema per test file, so files can run side by side against one database. */
export async function freshPostgres(
  migrations: Migration[],
  options: { max?: number } = {},
): Promise<{ sql: PgSqlClient; schema: string }> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const sql = await PgSqlClient.connect({ connectionString: TEST_DATABASE_URL, schema, max: options.max });
  await runMigrations(sql, migrations);
  return { sql, schema };
}

export async function dropSchema(schema: string): Promise<void> {
  const admin = await PgSqlClient.connect({ connectionString: TEST_DATABASE_URL, max: 1 });
  try {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await admin.close();
  }
}

export async function freshPglite(migrations: Migration[]): Promise<SqlClient> {
  const sql = await freshEmbeddedStore();
  await runMigrations(sql, migrations);
  return sql;
}
