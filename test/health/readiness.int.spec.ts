import { Ajv } from 'ajv';
import { SubscriptionRegistry } from '../../src/adapters/runner/subscription-registry.js';
import { StartupReadiness } from '../../src/adapters/runner/startup-readiness.js';
import { ProjectionRunners } from '../../src/adapters/runner/projection-runners.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';

/** OP-4: what /health/ready waits for at start, driven by hand (the app's own tasks are not autostarted here). */
describe('OP-4 readiness waits for background work and read models (PostgreSQL)', () => {
  let t: TestApp;
  afterEach(async () => {
    await t?.close();
  });

  const ready = () => t.request({ method: 'GET', url: '/health/ready', token: null });

  it('OP-4 503 naming a started task whose first pass has not ended, 200 once it has', async () => {
    t = await startTestApp('postgres', { autostart: false });
    const task = { name: 'fixture:slow-start', error: null, starting: true, start() {}, stop: async () => {} };
    t.app.get(SubscriptionRegistry).start(task);
    const before = await ready();
    expect(before.status).toBe(503);
    // RFC 9457: the problem's status is the number, not terminus' "error".
    expect(before.body).toMatchObject({ status: 503, code: 'not_ready' });
    expect(before.body.error.background).toEqual({
      status: 'down',
      reason: 'background starting',
      waitingFor: ['fixture:slow-start'],
    });
    task.starting = false;
    const after = await ready();
    expect(after.status).toBe(200);
    expect(after.body.info.background).toEqual({ status: 'up' });
  });

  it('OP-4 503 until a read model this process folds reaches the head seen at start, then ready for good', async () => {
    t = await startTestApp('postgres', { autostart: false });
    // The log has moved since start: the head seen at start is what the read models must reach.
    await t.request({
      method: 'PUT',
      url: '/v1/missions/m-1',
      key: 'k-1',
      body: { state: 'active', grants: missionGrants({ maxExecutionsPerHour: 1, maxConcurrent: 1 }) },
    });
    const head = await t.infra.store.headPosition();
    expect(head).toBeGreaterThan(0);
    const startup = t.app.get(StartupReadiness);
    (startup as unknown as { head: number }).head = head; // as if the service had started on this log
    const runner = [...t.app.get(ProjectionRunners).runners.values()].find((r) => r.projection.handles.length > 0)!;
    // Started by hand, so nothing folds on its own; its first pass is already over (not 'starting').
    const registry = t.app.get(SubscriptionRegistry);
    registry.start({
      name: runner.subscription.name,
      error: null,
      start() {},
      stop: async () => {},
      hasReached: (position) => runner.subscription.hasReached(position),
    });
    const behind = await ready();
    expect(behind.status).toBe(503);
    expect(behind.body.error.background).toMatchObject({
      status: 'down',
      reason: `read models catching up to position ${head}`,
      waitingFor: [runner.subscription.name],
    });
    await runner.catchUp();
    expect((await ready()).status).toBe(200);
    // Lag after start is not a reason to leave rotation: the latch holds.
    (startup as unknown as { head: number }).head = head + 1_000;
    expect((await ready()).status).toBe(200);
  });

  it('OP-4 api.md "store reachable, projection lag": the ready body reports each read model\'s lag behind the log head, and lag keeps it ready', async () => {
    t = await startTestApp('postgres', { autostart: false });
    await t.catchUp();
    const runners = t.app.get(ProjectionRunners);
    const names = [...runners.runners.keys()];
    const caughtUp = await ready();
    expect(caughtUp.status).toBe(200);
    expect(caughtUp.body.info.projections).toEqual({
      status: 'up',
      lagEvents: Object.fromEntries(names.map((name) => [name, 0])),
    });
    const written = await t.request({
      method: 'PUT',
      url: '/v1/missions/m-lag',
      key: 'k-lag',
      body: { state: 'active', grants: missionGrants({ maxExecutionsPerHour: 1, maxConcurrent: 1 }) },
    });
    expect(written.status).toBe(200);
    const head = await t.infra.store.headPosition();
    // Nothing folds on its own here: every read model trails by what was appended, and the service stays ready.
    const behind = await ready();
    expect(behind.status).toBe(200);
    const lagEvents = behind.body.info.projections.lagEvents as Record<string, number>;
    expect(Object.keys(lagEvents).sort()).toEqual([...names].sort());
    for (const [name, runner] of runners.runners)
      expect({ name, lag: lagEvents[name] }).toEqual({ name, lag: head - (await runner.position()) });
    expect(Math.max(...Object.values(lagEvents))).toBeGreaterThan(0);
    await t.catchUp();
    expect((await ready()).body.info.projections.lagEvents).toEqual(Object.fromEntries(names.map((n) => [n, 0])));
    // The OpenAPI document states the answer as it is.
    const doc = (await t.request({ method: 'GET', url: '/docs/openapi.json', token: null })).body;
    const schema = doc.paths['/health/ready'].get.responses['200'].content['application/json'].schema;
    expect(schema.properties.info.properties.projections.properties.lagEvents).toBeDefined();
    const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
    expect([validate(behind.body), validate.errors]).toEqual([true, null]);
  });
});
