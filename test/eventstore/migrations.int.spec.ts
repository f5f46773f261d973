import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PgliteSqlClient } from '../../src/adapters/eventstore/sql/pglite-sql-client.js';
import { runMigrations } from '../../src/adapters/eventstore/sql/migrations.js';
import type { SqlClient } from '../../src/projections/sql-client.js';
import { allMigrations } from '../../src/app.module.js';
import { dropSchema, freshPostgres } from '../support/databases.js';
import { freshEmbeddedStore } from '../support/embedded-store.js';

describe('schema migrations across restarts', () => {
  it('the embedded default (PGlite in a data dir) starts a second time: nothing is applied twice', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'reveille-restart-'));
    try {
      const first = await PgliteSqlClient.open(dataDir);
      // PGlite is built without lz4: that one migration is skipped, and asked again at each start.
      expect(await runMigrations(first, allMigrations())).toEqual(
        allMigrations()
          .map((m) => m.id)
          .filter((id) => id !== '0002_events_data_lz4'),
      );
      await first.close();
      const second = await PgliteSqlClient.open(dataDir);
      try {
        expect(await runMigrations(second, allMigrations())).toEqual([]);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    // Two PGlite starts in a data dir with every migration: over a minute on a loaded 2-core machine
  }, 180_000);

  it('PostgreSQL built with lz4: event data is compressed with lz4 (a server-capability migration)', async () => {
    const { sql, schema } = await freshPostgres(allMigrations(), { max: 1 });
    try {
      const supported = (
        await sql.query<{ ok: boolean }>(
          `SELECT 'lz4' = ANY(enumvals) AS ok FROM pg_settings WHERE name = 'default_toast_compression'`,
        )
      ).rows[0]!.ok;
      const { rows } = await sql.query<{ compression: string }>(
        `SELECT attcompression::text AS compression FROM pg_attribute WHERE attrelid = 'events'::regclass AND attname = 'data'`,
      );
      expect(rows[0]!.compression).toBe(supported ? 'l' : '');
      const recorded = await sql.query(`SELECT 1 FROM schema_migrations WHERE id = '0002_events_data_lz4'`);
      expect(recorded.rows.length).toBe(supported ? 1 : 0);
    } finally {
      await sql.close();
      await dropSchema(schema);
    }
  });

  it('PostgreSQL: a second run applies nothing', async () => {
    const { sql, schema } = await freshPostgres(allMigrations(), { max: 1 });
    try {
      expect(await runMigrations(sql, allMigrations())).toEqual([]);
    } finally {
      await sql.close();
      await dropSchema(schema);
    }
  });

  it.each(['pglite', 'postgres'])(
    '%s: rowCount of a SELECT is the rows it returned, of a write the rows it changed',
    async (kind) => {
      const opened =
        kind === 'pglite'
          ? { sql: (await freshEmbeddedStore()) as SqlClient, schema: null }
          : await freshPostgres([], { max: 1 });
      const { sql } = opened;
      try {
        expect((await sql.query('SELECT g FROM generate_series(1, 3) g')).rowCount).toBe(3);
        await sql.query('CREATE TEMP TABLE t (n int)');
        expect((await sql.query('INSERT INTO t SELECT generate_series(1, 4)')).rowCount).toBe(4);
        expect((await sql.query('UPDATE t SET n = n + 1 WHERE n > 2')).rowCount).toBe(2);
        expect((await sql.query('SELECT 1 WHERE false')).rowCount).toBe(0);
      } finally {
        await sql.close();
        if (opened.schema) await dropSchema(opened.schema);
      }
    },
  );
});
