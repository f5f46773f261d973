import { newKey, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';

/**
 * api.md Conventions: every read takes `?minPosition=P`, waits at most 2 s for what answers it to reach P, and
 * otherwise answers what it has with `stale: true`. Definitions and an execution's detail are read from the log
 * itself, so for them "caught up" is the store holding P.
 */
describe('read-your-writes: ?minPosition on every read route (postgres)', () => {
  let t: TestApp;
  let token: string;
  let lastPosition = 0;
  let executionId = '';
  let occurrenceId = '';
  const get = (url: string) => t.request({ method: 'GET', url, token });
  const write = async (method: string, url: string, body: unknown, status = 200) => {
    const answer = await t.request({ method, url, body, token, key: newKey() });
    expect({ url, status: answer.status, body: answer.body }).toMatchObject({ url, status });
    lastPosition = Math.max(lastPosition, answer.body.position ?? 0);
    return answer.body;
  };
  const routes = () => [
    '/v1/missions/m-1',
    '/v1/sources/s-1',
    '/v1/triggers/t-manual',
    '/v1/triggers/t-manual/revisions',
    '/v1/triggers/t-every/schedule/instants?count=2',
    `/v1/operator/executions/${executionId}`,
    '/v1/executions',
    '/v1/operator/dead-letters',
    '/v1/operator/triggers',
    '/v1/operator/triggers/t-manual',
    '/v1/operator/occurrences',
    `/v1/operator/occurrences/${occurrenceId}`,
  ];
  const withPosition = (url: string, position: string | number) =>
    `${url}${url.includes('?') ? '&' : '?'}minPosition=${position}`;

  beforeAll(async () => {
    t = await startTestApp('postgres');
    token = await t.token({ tenant: 'tenant-a' });
    const grants = missionGrants({ maxExecutionsPerHour: 100, maxConcurrent: 5 });
    await write('PUT', '/v1/missions/m-1', { state: 'active', grants });
    await write('PUT', '/v1/sources/s-1', { scheme: 'standard-webhooks' });
    await write('PUT', '/v1/triggers/t-manual', { missionId: 'm-1', type: 'manual' });
    await write('PUT', '/v1/triggers/t-every', {
      missionId: 'm-1',
      type: 'schedule',
      schedule: { engine: 'interval@1', expression: 'PT1H', timezone: 'UTC', start: '2026-01-01T00:00:00.000Z' },
    });
    const fired = await write('POST', '/v1/triggers/t-manual/occurrences?wait=decision', { input: {} });
    expect(fired.status).toBe('admitted');
    [executionId, occurrenceId] = [fired.executionId, fired.occurrenceId];
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers plainly once what answers the read holds the caller’s last write', async () => {
    const answers = await Promise.all(routes().map((url) => get(withPosition(url, lastPosition))));
    expect(answers.map((a, i) => ({ url: routes()[i], status: a.status, stale: a.body.stale }))).toEqual(
      routes().map((url) => ({ url, status: 200, stale: undefined })),
    );
  });

  it('waits about 2 s for a position no write has reached, then answers what it has with stale: true', async () => {
    const beyond = lastPosition + 1_000_000;
    const started = performance.now();
    const answers = await Promise.all(
      routes().map(async (url) => {
        const answer = await get(withPosition(url, beyond));
        return { url, status: answer.status, stale: answer.body.stale, waited: performance.now() - started };
      }),
    );
    expect(answers).toEqual(routes().map((url) => ({ url, status: 200, stale: true, waited: expect.any(Number) })));
    for (const { waited } of answers) {
      expect(waited).toBeGreaterThanOrEqual(1_900);
      expect(waited).toBeLessThan(6_000);
    }
  });

  it('reads a definition write at the position it answered', async () => {
    const revised = await write('PUT', '/v1/missions/m-1', {
      state: 'paused',
      grants: missionGrants({ maxExecutionsPerHour: 50, maxConcurrent: 5 }),
    });
    const read = await get(`/v1/missions/m-1?minPosition=${revised.position}`);
    expect(read.body).toMatchObject({ revision: revised.revision, state: 'paused' });
    expect(read.body).not.toHaveProperty('stale');
  });

  it('refuses a minPosition that is not a non-negative integer, on every route, before any read', async () => {
    for (const bad of ['abc', '-1', '1.5', '99999999999999999999']) {
      const answers = await Promise.all(routes().map((url) => get(withPosition(url, bad))));
      expect(
        answers.map((a, i) => ({ url: routes()[i], status: a.status, pointer: a.body.errors?.[0]?.pointer })),
      ).toEqual(routes().map((url) => ({ url, status: 400, pointer: '?minPosition' })));
    }
  });
});
