import { jest } from '@jest/globals';
import type { PgSqlClient } from '../../src/adapters/eventstore/sql/pg-sql-client.js';
import { ProjectionRunners } from '../../src/adapters/runner/projection-runners.js';
import { PENDING_EXECUTIONS_PROJECTION } from '../../src/projections/pending-executions/pending-executions.projection.js';
import { newKey, startTestApp, type TestApp } from '../support/app.js';
import { freshPostgres, dropSchema } from '../support/databases.js';
import { missionGrants } from '../support/grants.js';
import { until } from '../support/until.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PostgreSQL notifications: who listens (postgres)', () => {
  it('a topic has a listener while a session listens to it, and none before or after', async () => {
    const { sql, schema } = await freshPostgres([], { max: 2 });
    try {
      const notifications = sql.notifications;
      expect(await notifications.listening('probe')).toBe(false);
      const heard: string[] = [];
      const stop = notifications.listen('probe', (payload) => heard.push(payload));
      await until(() => notifications.listening('probe'), 5_000, 20);
      // The look is by this schema's channel: another topic has nobody.
      expect(await notifications.listening('other')).toBe(false);
      await notifications.notify('probe', 'hello');
      await until(() => heard.includes('hello'), 5_000, 10);
      await stop();
      await until(async () => !(await notifications.listening('probe')), 5_000, 20);
    } finally {
      await sql.close();
      await dropSchema(schema);
    }
  });
});

/**
 * EX-2: a claim-next parked on an HTTP-only process (REVEILLE_BACKGROUND=off) wakes on the folds of the process
 * that runs the pending-executions read model, told through LISTEN/NOTIFY; before, it heard of none and found the
 * work only on its 100 ms re-read. Nothing is sent while nobody listens.
 */
describe('EX-2 claim-next on an HTTP-only process hears of folds made by another (postgres)', () => {
  let folding: TestApp;
  let httpOnly: TestApp | undefined;
  const tenant = 'tenant-relay';

  beforeAll(async () => {
    folding = await startTestApp('postgres');
  });
  afterAll(async () => {
    await httpOnly?.close();
    await folding?.close();
  });

  const fire = async (triggerId: string) => {
    const fired = await folding.request({
      method: 'POST',
      url: `/v1/triggers/${triggerId}/occurrences?wait=decision`,
      key: newKey(),
      token: await folding.token({ tenant }),
      body: { input: {} },
    });
    expect(fired.body.status).toBe('admitted');
    return fired.body.executionId as string;
  };

  it('EX-2 the folding process tells nobody while nobody listens, then wakes the HTTP-only process’s parked claim-next', async () => {
    const token = await folding.token({ tenant });
    const put = (url: string, body: unknown) => folding.request({ method: 'PUT', url, key: newKey(), token, body });
    expect(
      (
        await put('/v1/missions/m-relay', {
          state: 'active',
          grants: missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: 100 }),
        })
      ).status,
    ).toBe(200);
    expect((await put('/v1/triggers/t-relay', { missionId: 'm-relay', type: 'manual' })).status).toBe(200);

    const notify = jest.spyOn((folding.sql as PgSqlClient).notifications, 'notify');
    let foldedHere = 0;
    folding.app
      .get(ProjectionRunners)
      .get(PENDING_EXECUTIONS_PROJECTION)
      .onFoldedHere(() => foldedHere++);
    await fire('t-relay');
    await until(() => foldedHere > 0, 5_000, 10);
    await sleep(200); // its look for listeners, had it sent anything
    expect(notify.mock.calls.filter(([topic]) => topic === 'pending_folded')).toEqual([]);

    const { schema } = (await folding.sql.query<{ schema: string }>('SELECT current_schema() AS schema')).rows[0]!;
    httpOnly = await startTestApp('postgres', {
      database: schema,
      autostart: false,
      env: { REVEILLE_BACKGROUND: 'off' },
    });
    let heard = 0;
    httpOnly.app
      .get(ProjectionRunners)
      .get(PENDING_EXECUTIONS_PROJECTION)
      .onFolded(() => heard++);
    const httpOnlyToken = await httpOnly.token({ tenant });
    const claimNext = () =>
      httpOnly!.request({
        method: 'POST',
        url: '/v1/executions/claim-next',
        key: newKey(),
        token: httpOnlyToken,
        body: { consumerId: 'relay-worker', waitSeconds: 10 },
      });
    // The first execution is still pending: take it, so the next claim-next parks.
    expect((await claimNext()).status).toBe(200);

    // The folding process looks for listeners at most every 2 s: fire until one of its folds is told.
    const claimed: string[] = [];
    const parked = (async () => {
      const answer = await claimNext();
      expect(answer.status).toBe(200);
      claimed.push(answer.body.executionId);
    })();
    const fired: string[] = [];
    for (let i = 0; i < 20 && heard === 0; i++) {
      fired.push(await fire('t-relay'));
      await sleep(250);
    }
    expect(heard).toBeGreaterThan(0);
    expect(notify.mock.calls.some(([topic]) => topic === 'pending_folded')).toBe(true);
    await parked;
    expect(fired).toContain(claimed[0]);
  });
});
