import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../../scripts/build-if-needed.js';
import type { PgSqlClient } from '../../src/adapters/eventstore/sql/pg-sql-client.js';
import { SqlEventStore } from '../../src/adapters/eventstore/sql/sql-event-store.js';
import { allMigrations } from '../../src/app.module.js';
import { projections } from '../../src/projections/index.js';
import { missionStream } from '../../src/domain/shared/ids.js';
import { dropSchema, freshPostgres, TEST_DATABASE_URL } from '../support/databases.js';
import { expectOneLine } from '../support/cli-output.js';

/** AU-2 `reveille audit verify` as an operator runs it: its own process, its exit code, its output. */
describe('AU-2 reveille audit verify (CLI)', () => {
  let sql: PgSqlClient;
  let schema: string;
  const reveille = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, ['bin/reveille.js', ...args], {
      env: { ...process.env, DATABASE_URL: TEST_DATABASE_URL, REVEILLE_DB_SCHEMA: schema, EVENTSTORE_URL: '', ...env },
      encoding: 'utf8',
    });
  const cli = (...args: string[]) => reveille(['audit', 'verify', ...args]);

  beforeAll(async () => {
    ensureBuilt();
    ({ sql, schema } = await freshPostgres(allMigrations(), { max: 2 }));
    const store = new SqlEventStore(sql);
    const data = (revision: number, state: string) => ({
      tenant: 'acme',
      missionId: 'm-1',
      revision,
      state,
      grants: {},
      reason: 'cli test',
      actor: 'a',
      at: '2026-01-01T00:00:00.000Z',
    });
    await store.append(
      missionStream('acme', 'm-1'),
      [{ type: 'MissionRevised', data: data(1, 'active') }],
      'no_stream',
    );
    await store.append(missionStream('acme', 'm-1'), [{ type: 'MissionRevised', data: data(2, 'paused') }], 0);
    // The live read models where a service would have folded them: at the head, so every table is compared
    expect(reveille(['projections', 'rebuild']).status).toBe(0);
  }, 180_000);
  afterAll(async () => {
    await sql?.close();
    if (schema) await dropSchema(schema);
  });

  it('exits 0 on a clean log with a summary, and --json answers the machine-readable report', () => {
    const human = cli();
    expect(human.status).toBe(0);
    expect(human.stdout).toContain('checked 2 events in 1 streams from position 0');
    expect(human.stdout).toContain('no violations');
    expect(human.stdout).not.toContain('NOT COMPARED');
    const json = cli('--json');
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: true,
      complete: true,
      events: 2,
      streams: 1,
      violations: 0,
      listed: [],
    });
  });

  it('a read model it could not compare (a service folding elsewhere) is said in the summary and exits 3, not 0', async () => {
    // A live checkpoint that is not where the rebuild ends: what a service still folding leaves
    const moved = await sql.query(
      `UPDATE checkpoints SET position = position + 1 WHERE name = 'projection:${projections[0]!.name}'`,
    );
    expect(moved.rowCount).toBe(1);
    try {
      const human = cli();
      expect(human.status).toBe(3);
      expect(human.stdout).toContain('no violations in what was checked');
      expect(human.stdout).toMatch(
        /\nINCOMPLETE: \d+ of \d+ read-model tables NOT COMPARED .*run again while no service writes/,
      );
      const json = cli('--json');
      expect(json.status).toBe(3);
      expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, complete: false, violations: 0 });
    } finally {
      expect(reveille(['projections', 'rebuild']).status).toBe(0);
    }
    expect(cli().status).toBe(0);
  });

  it("an empty or typo'd schema, a missing database, an unreachable store or a bad flag is refused in one line, exit 2, and nothing is created", async () => {
    const typo = `${schema}_typo`;
    const exists = async (name: string) =>
      (await sql.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [name])).rows.length;
    const missing = reveille(['audit', 'verify'], { REVEILLE_DB_SCHEMA: typo });
    expect({ status: missing.status, stdout: missing.stdout }).toEqual({ status: 2, stdout: '' });
    expectOneLine(missing.stderr);
    expect(missing.stderr).toMatch(
      new RegExp(`^reveille audit verify: no Reveille store in schema ${typo} of DATABASE_URL`),
    );
    expect(await exists(typo)).toBe(0);

    await sql.query(`CREATE SCHEMA ${typo}`);
    try {
      const empty = reveille(['audit', 'verify', '--json'], { REVEILLE_DB_SCHEMA: typo });
      expect(empty.status).toBe(2);
      expectOneLine(empty.stderr);
      expect(empty.stderr).toContain('no schema_migrations table');
      const tables = await sql.query(`SELECT 1 FROM information_schema.tables WHERE table_schema = $1`, [typo]);
      expect(tables.rows).toHaveLength(0);
    } finally {
      await sql.query(`DROP SCHEMA ${typo} CASCADE`);
    }

    const noDatabase = reveille(['audit', 'verify'], {
      DATABASE_URL: TEST_DATABASE_URL.replace(/\/[^/?]+(\?|$)/, '/reveille_no_such_db$1'),
    });
    expect(noDatabase.status).toBe(2);
    expectOneLine(noDatabase.stderr);
    expect(noDatabase.stderr).toContain('no Reveille store: database "reveille_no_such_db" does not exist');

    const dataDir = join(mkdtempSync(join(tmpdir(), 'reveille-verify-')), 'nothing-here');
    const noEmbedded = reveille(['audit', 'verify'], { DATABASE_URL: '', REVEILLE_DATA_DIR: dataDir });
    expect(noEmbedded.status).toBe(2);
    expectOneLine(noEmbedded.stderr);
    expect(noEmbedded.stderr).toContain(`no Reveille store in ${dataDir} (no embedded database)`);
    expect(existsSync(dataDir)).toBe(false);

    const unreachable = reveille(['audit', 'verify'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test' });
    expect(unreachable.status).toBe(2);
    expectOneLine(unreachable.stderr);
    expect(unreachable.stderr).toMatch(/^reveille audit verify: could not verify: event store unavailable: /);

    // Bad flags: nothing run, exit 2 as well
    for (const flags of [
      ['--frm', '1'],
      ['--from', 'abc'],
      ['--json', '--json'],
    ]) {
      const refused = reveille(['audit', 'verify', ...flags]);
      expect({ flags, status: refused.status, stdout: refused.stdout }).toEqual({ flags, status: 2, stdout: '' });
      expectOneLine(refused.stderr);
    }
  });

  it('exits 1 on a tampered row, naming rule, stream and position; refuses a --from the log does not hold', async () => {
    const { rows } = await sql.query<{ position: string }>(
      `UPDATE events SET data = jsonb_set(data, '{state}', '"cancelled"') WHERE revision = 1 RETURNING position`,
    );
    const position = Number(rows[0]!.position);
    const run = cli();
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(
      `violation hash_mismatch: stream ${missionStream('acme', 'm-1')} position ${position} revision 1`,
    );
    expect(run.stdout).toContain(`hash_mismatch: 1 (first at position ${position})`);
    const json = JSON.parse(cli('--json').stdout);
    // The tampered state also reaches two read models' tables (claims and Trigger health keep each Mission's state)
    expect(json.byRule).toEqual({
      hash_mismatch: { count: 1, firstPositions: [position] },
      read_model_mismatch: { count: 2, firstPositions: [] },
    });

    const unknown = cli('--from', '999999');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('--from 999999: the log holds no event at this position');
  });
});
