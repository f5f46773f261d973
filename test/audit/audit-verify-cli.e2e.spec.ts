import { spawnSync } from 'node:child_process';
import { ensureBuilt } from '../../scripts/build-if-needed.js';
import type { PgSqlClient } from '../../src/adapters/eventstore/sql/pg-sql-client.js';
import { SqlEventStore } from '../../src/adapters/eventstore/sql/sql-event-store.js';
import { allMigrations } from '../../src/app.module.js';
import { missionStream } from '../../src/domain/shared/ids.js';
import { dropSchema, freshPostgres, TEST_DATABASE_URL } from '../support/databases.js';

/** AU-2 `reveille audit verify` as an operator runs it: its own process, its exit code, its output. */
describe('AU-2 reveille audit verify (CLI)', () => {
  let sql: PgSqlClient;
  let schema: string;
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ['bin/reveille.js', 'audit', 'verify', ...args], {
      env: { ...process.env, DATABASE_URL: TEST_DATABASE_URL, REVEILLE_DB_SCHEMA: schema, EVENTSTORE_URL: '' },
      encoding: 'utf8',
    });

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
    const json = cli('--json');
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, events: 2, streams: 1, violations: 0, listed: [] });
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
    expect(json.byRule).toEqual({ hash_mismatch: { count: 1, firstPositions: [position] } });

    const unknown = cli('--from', '999999');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('--from 999999: the log holds no event at this position');
  });
});
