import { mkdtempSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { CoalesceTimersService } from '../../src/adapters/coalescing/coalesce-timers.service.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { dropSchema } from '../support/databases.js';
import { missionGrants } from '../support/grants.js';

const WINDOW_MS = 2500;
const COALESCE = [{ match: { pointer: '/type', equals: 'health.sample' }, mode: 'latest', windowMs: WINDOW_MS }];

async function until<T>(what: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await what();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function setUp(t: TestApp, suffix: string): Promise<string> {
  const missionId = `m-r-${suffix}`;
  const triggerId = `t-r-${suffix}`;
  const grants = missionGrants({ maxExecutionsPerHour: 100, maxConcurrent: 10 });
  expect(
    (
      await t.request({
        method: 'PUT',
        url: `/v1/missions/${missionId}`,
        key: newKey(),
        body: { state: 'active', grants },
      })
    ).status,
  ).toBe(200);
  const put = await t.request({
    method: 'PUT',
    url: `/v1/triggers/${triggerId}`,
    key: newKey(),
    body: { expectedRevision: 0, missionId, type: 'manual', coalesce: COALESCE },
  });
  expect(put.status).toBe(200);
  return triggerId;
}

async function fireSamples(t: TestApp, triggerId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let v = 0; v < count; v++) {
    const fired = await t.request({
      method: 'POST',
      url: `/v1/triggers/${triggerId}/occurrences`,
      key: newKey(),
      body: { input: { type: 'health.sample', v } },
    });
    expect(fired.status).toBe(202);
    ids.push(fired.body.occurrenceId as string);
  }
  return ids;
}

const countOf = async (t: TestApp, type: string, ids: readonly string[]) =>
  Number(
    (
      await t.sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM events WHERE type = $1 AND (data->>'occurrenceId' = ANY($2::text[]) OR data->>'groupId' = ANY($2::text[]))`,
        [type, ids],
      )
    ).rows[0]!.n,
  );

const closesAtOf = async (t: TestApp, groupId: string) =>
  (
    await t.sql.query<{ closes_at: string }>(
      `SELECT data->>'closesAt' AS closes_at FROM events WHERE type = 'CoalesceGroupOpened' AND data->>'groupId' = $1`,
      [groupId],
    )
  ).rows[0]!.closes_at;

function restartSuite(kind: StoreKind): void {
  describe(`DD-5 SC-6 an open coalescing window survives a restart (${kind})`, () => {
    const database =
      kind === 'postgres' ? `t_${randomBytes(6).toString('hex')}` : mkdtempSync(join(tmpdir(), 'reveille-coalesce-'));
    afterAll(async () => {
      if (kind === 'postgres') await dropSchema(database);
    });

    it('DD-5 a window open at shutdown is closed once after the restart, not before its time', async () => {
      const first = await startTestApp(kind, { autostart: false, database });
      const triggerId = await setUp(first, kind);
      const ids = await fireSamples(first, triggerId, 3);
      await first.app.get(AdmissionProcessor).subscription.catchUp();
      await first.catchUp();
      expect(await countOf(first, 'OccurrenceHeldForCoalescing', ids)).toBe(3);
      await first.close();

      // A new process: the admission processor, the read models and the timer run on their own.
      const second = await startTestApp(kind, { database });
      try {
        await until(async () => (await countOf(second, 'OccurrenceAdmitted', ids)) > 0, 60_000).catch(async (e) => {
          const seen = await second.sql.query(`SELECT type, count(*)::int AS n FROM events GROUP BY type`);
          const open = await second.sql.query(`SELECT * FROM rm_coalesce_open`);
          throw new Error(`${(e as Error).message}: ${JSON.stringify(seen.rows)} ${JSON.stringify(open.rows)}`);
        });
        // Give a second close a chance to happen, then look: one close, one admission, the rest coalesced.
        await new Promise((r) => setTimeout(r, 500));
        expect(await countOf(second, 'CoalesceGroupClosed', ids)).toBe(1);
        expect(await countOf(second, 'OccurrenceAdmitted', ids)).toBe(1);
        expect(await countOf(second, 'OccurrenceCoalesced', ids)).toBe(2);
        const decided = await second.sql.query<{ decided_at: string; members: string[] }>(
          `SELECT data->>'decidedAt' AS decided_at, data->'members' AS members FROM events
            WHERE type = 'OccurrenceAdmitted' AND data->>'occurrenceId' = $1`,
          [ids[2]],
        );
        expect(decided.rows[0]!.members).toEqual(ids);
        // At the right time by the database clock: never before the window closes.
        expect(Date.parse(decided.rows[0]!.decided_at)).toBeGreaterThanOrEqual(
          Date.parse(await closesAtOf(second, ids[0]!)),
        );
      } finally {
        await second.close();
      }
    }, 120_000);
  });
}

restartSuite('postgres');
restartSuite('pglite');

describe('DD-5 two processes racing to close one group (postgres, one schema)', () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp('postgres', { autostart: false, database: schema });
    b = await startTestApp('postgres', { autostart: false, database: schema });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await dropSchema(schema);
  });

  it('DD-5 both timers see the due group; exactly one admission, every member decided once', async () => {
    const triggerId = await setUp(a, 'race');
    const ids = await fireSamples(a, triggerId, 4);
    await a.app.get(AdmissionProcessor).subscription.catchUp();
    await until(async () => {
      // One schema, one set of read models: one runner folds them.
      await a.catchUp();
      // Both loops at once, several times over, until the group is closed.
      const closed = await Promise.all([
        a.app.get(CoalesceTimersService).timers.runOnce(),
        b.app.get(CoalesceTimersService).timers.runOnce(),
        a.app.get(CoalesceTimersService).timers.runOnce(),
        b.app.get(CoalesceTimersService).timers.runOnce(),
      ]);
      return closed.some((n) => n > 0);
    });
    await Promise.all([
      a.app.get(CoalesceTimersService).timers.runOnce(),
      b.app.get(CoalesceTimersService).timers.runOnce(),
    ]);
    expect(await countOf(a, 'CoalesceGroupClosed', ids)).toBe(1);
    expect(await countOf(a, 'OccurrenceAdmitted', ids)).toBe(1);
    expect(await countOf(a, 'OccurrenceCoalesced', ids)).toBe(3);
  });
});
