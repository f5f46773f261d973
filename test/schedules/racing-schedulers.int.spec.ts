import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureBuilt } from '../../scripts/build-if-needed.js';
import type { PgSqlClient } from '../../src/adapters/eventstore/sql/pg-sql-client.js';
import { SqlEventStore } from '../../src/adapters/eventstore/sql/sql-event-store.js';
import { handleCommand } from '../../src/commands/shared/write-kernel.js';
import { missionDecider } from '../../src/domain/mission/mission.js';
import { missionStream } from '../../src/domain/shared/ids.js';
import { allMigrations } from '../../src/app.module.js';
import { ProjectionRunner } from '../../src/projections/runner/projection-runner.js';
import { schedulesProjection } from '../../src/projections/scheduler/schedules.projection.js';
import { dropSchema, freshPostgres, TEST_DATABASE_URL } from '../support/databases.js';
import { firedOf, GRANTS, reviseSchedule } from './schedule-fixtures.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SKEW = pathToFileURL(join(ROOT, 'test', 'support', 'skewed-clock.mjs')).href;
const HOUR = 3_600_000;
const TENANT = 'acme';

interface Report {
  fired: number;
  conflicts: number;
  dbNow: string;
  hostNow: string;
}

const iso = (ms: number) => new Date(ms).toISOString();
const seconds = (fromMs: number, count: number) => Array.from({ length: count }, (_, i) => iso(fromMs + i * 1000));

describe('SC-3 SC-6 SC-8 separate scheduler processes against one PostgreSQL', () => {
  let sql: PgSqlClient;
  let schema: string;
  let store: SqlEventStore;
  let n = 0;

  beforeAll(async () => {
    ensureBuilt();
    ({ sql, schema } = await freshPostgres(allMigrations(), { max: 4 }));
    store = new SqlEventStore(sql);
    const at = (await store.now()).toISOString();
    const mission = {
      type: 'ReviseMission' as const,
      tenant: TENANT,
      missionId: 'm-1',
      definition: { state: 'active', grants: GRANTS },
      reason: '',
      actor: 'svc-test',
      at,
    };
    await handleCommand(store, missionStream(TENANT, 'm-1'), missionDecider, mission, { tenant: TENANT });
  }, 180_000);
  afterAll(async () => {
    await sql?.close();
    if (schema) await dropSchema(schema);
  });

  /** A per-second schedule from `startMs` (`count` instants, or open-ended), activated just before it. */
  async function secondly(startMs: number, count: number | null): Promise<string> {
    const triggerId = `t-${++n}`;
    const end = count === null ? null : iso(startMs + (count - 1) * 1000);
    const schedule = {
      engine: 'interval@1',
      expression: 'PT1S',
      timezone: 'UTC',
      start: iso(startMs),
      end,
      missed: { policy: 'skip', graceSeconds: 3600 },
    };
    await reviseSchedule(store, {
      tenant: TENANT,
      triggerId,
      missionId: 'm-1',
      activatedAt: iso(startMs - 1000),
      schedule,
    });
    return triggerId;
  }

  /**
   * `node dist/src/main.js scheduler --once` in its own OS process, its host clock skewed by `skewMs`.
   * `--claim none --batch-size 1`: no row locks and one Trigger per transaction, so the processes
   * interleave on the same Triggers and only the streams decide.
   */
  function scheduler(skewMs: number): Promise<Report> {
    return new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          SKEW,
          join(ROOT, 'dist', 'src', 'main.js'),
          'scheduler',
          '--once',
          '--claim',
          'none',
          '--batch-size',
          '1',
        ],
        {
          cwd: ROOT,
          env: {
            ...process.env,
            DATABASE_URL: TEST_DATABASE_URL,
            REVEILLE_DB_SCHEMA: schema,
            REVEILLE_TEST_CLOCK_SKEW_MS: String(skewMs),
            EVENTSTORE_URL: '',
            NODE_ENV: 'test',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk) => (out += chunk));
      child.stderr.on('data', (chunk) => (err += chunk));
      child.on('error', reject);
      child.on('exit', (code) =>
        code === 0
          ? resolve(JSON.parse(out.trim().split('\n').pop()!) as Report)
          : reject(new Error(`scheduler exited ${code}: ${err}`)),
      );
    });
  }

  const catchUpIndex = () => new ProjectionRunner(sql, store, schedulesProjection).catchUp();

  it('three processes racing 200 instants (hosts skewed ±1 h) leave exactly one Occurrence per instant', async () => {
    const t0 = Math.floor((await store.now()).getTime() / 1000) * 1000 - 60_000;
    const bounded = [];
    for (let i = 0; i < 100; i++) bounded.push(await secondly(t0 + (i % 10) * 1000, 2));
    const open = await secondly(t0, null);
    await catchUpIndex();
    const started = (await store.now()).getTime();

    const reports = await Promise.all([HOUR, -HOUR, 0].map((skew) => scheduler(skew)));
    const ended = (await store.now()).getTime();

    reports.forEach((report, i) =>
      expect(Date.parse(report.hostNow) - Date.parse(report.dbNow)).toBeCloseTo([HOUR, -HOUR, 0][i]!, -5),
    );
    for (const [i, id] of bounded.entries())
      expect(await firedOf(sql, TENANT, id)).toEqual(seconds(t0 + (i % 10) * 1000, 2));
    // the open schedule: every instant up to the database's now, once each, none beyond it (SC-4)
    const fired = await firedOf(sql, TENANT, open);
    expect(fired.length).toBeGreaterThanOrEqual((started - t0) / 1000);
    expect(fired).toEqual(seconds(t0, fired.length));
    expect(Date.parse(fired[fired.length - 1]!)).toBeLessThanOrEqual(ended);
    expect(reports.reduce((sum, r) => sum + r.fired, 0)).toBe(200 + fired.length);
  }, 60_000);

  it('a host clock an hour behind still fires what is due; an hour ahead fires nothing early', async () => {
    const now = Math.floor((await store.now()).getTime() / 1000) * 1000;
    const past = await secondly(now - 60_000, 50);
    const future = await secondly(now + 30 * 60_000, null);
    await catchUpIndex();
    // (the open schedule of the first test keeps firing too; each assertion names its own Trigger)
    await scheduler(-HOUR);
    expect(await firedOf(sql, TENANT, past)).toEqual(seconds(now - 60_000, 50));
    await scheduler(HOUR);
    expect(await firedOf(sql, TENANT, future)).toEqual([]);
    expect(await firedOf(sql, TENANT, past)).toEqual(seconds(now - 60_000, 50));
  }, 60_000);
});
