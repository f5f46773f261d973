import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { createWorker, type ExecutionClaim, type Worker, type WorkerEvent } from '../../src/adapters/client/index.js';
import { ScheduleMaterializer } from '../../src/adapters/scheduler/schedule-materializer.js';
import { newKey, startTestApp, type TestApp } from '../support/app.js';
import { ManualClock } from '../support/manual-clock.js';
import { at, firedOf, GRANTS, minute, reviseSchedule } from '../schedules/schedule-fixtures.js';

const TENANT = 'tenant-a';
const MISSION = 'm-seams';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * EX-5: the two generic seams, proven with synthetic consumers only (Reveille holds no product consumer code).
 * Each consumer is the published client (`reveille/client`) long-polling `claim-next` against the real service on
 * real PostgreSQL; it records the claim body its handler received and completes.
 */
describe('EX-5 consumer seams, synthetic consumers (postgres)', () => {
  let t: TestApp;
  const clock = new ManualClock(at('00:00:00'));
  const workers: Worker[] = [];

  beforeAll(async () => {
    // Held back, so the schedule fires only when the test moves its clock (SC-6 without waiting).
    t = await startTestApp('postgres', { autostart: false });
    const mission = await t.request({
      method: 'PUT',
      url: `/v1/missions/${MISSION}`,
      key: newKey(),
      body: { state: 'active', grants: GRANTS },
    });
    expect(mission.status).toBe(200);
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await t?.close();
  });

  /** Admission and the read models, as the background subscriptions would run them. */
  const settle = async () => {
    await t.app.get(AdmissionProcessor).subscription.catchUp();
    await t.catchUp();
  };

  /** One synthetic consumer bound to `triggerId`: the claim its handler got, once it completed. */
  async function consumeOne(triggerId: string, consumerId: string): Promise<ExecutionClaim> {
    const claims: ExecutionClaim[] = [];
    const events: WorkerEvent[] = [];
    const worker = createWorker({
      baseUrl: t.baseUrl,
      token: () => t.token(),
      consumerId,
      triggerId,
      waitSeconds: 1,
      handler: async (claim) => {
        claims.push(claim);
        return { receipt: { checked: claim.executionId } };
      },
      onEvent: (event) => events.push(event),
    });
    workers.push(worker);
    const deadline = Date.now() + 20_000;
    while (!events.some((e) => e.type === 'completed')) {
      if (Date.now() > deadline) throw new Error(`no completion for ${triggerId}: ${JSON.stringify(events)}`);
      await sleep(50);
    }
    await worker.stop();
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    expect(claims).toHaveLength(1);
    return claims[0]!;
  }

  const putTrigger = (triggerId: string, body: Record<string, unknown>) =>
    t.request({
      method: 'PUT',
      url: `/v1/triggers/${triggerId}`,
      key: newKey(),
      body: { missionId: MISSION, ...body },
    });
  const fire = async (triggerId: string) => {
    const fired = await t.request({
      method: 'POST',
      url: `/v1/triggers/${triggerId}/occurrences`,
      key: newKey(),
      body: { input: { resource: 'repo:acme/api' }, resourceRefs: ['repo:acme/api'] },
    });
    expect(fired.status).toBe(202);
  };

  it('EX-5 (a) a verification-style consumer bound to a cadence receives scheduledAt and firedAt in its claim', async () => {
    await reviseSchedule(t.infra.store, {
      tenant: TENANT,
      triggerId: 'cadence',
      missionId: MISSION,
      activatedAt: at('00:00:30'),
      schedule: { engine: 'cron@1', expression: '* * * * *', timezone: 'UTC', missed: { policy: 'skip' } },
    });
    await t.catchUp();
    clock.set(minute(1));
    const materializer = new ScheduleMaterializer({ store: t.infra.store, sql: t.sql, signal: t.infra.signal, clock });
    expect((await materializer.runOnce()).fired).toBe(1);
    expect(await firedOf(t.sql, TENANT, 'cadence')).toEqual([minute(1)]);
    await settle();

    const claim = await consumeOne('cadence', 'verifier-1');
    expect(claim).toMatchObject({ triggerId: 'cadence', missionId: MISSION, scheduledAt: minute(1), fence: 1 });
    // firedAt is the admission instant by the database clock: never before the intended instant (SC-4).
    expect(Date.parse(claim.firedAt!)).toBeGreaterThanOrEqual(Date.parse(minute(1)));
    // A cadence that declares no runtime or budget hands the consumer no limits, never the Mission's slot counts.
    expect(claim.limits).toStrictEqual({});
  });

  it('EX-5 (b) a detector-style consumer receives the declared maxRuntimeSeconds and budgetUnits as its limits', async () => {
    const put = await putTrigger('detector', {
      expectedRevision: 0,
      type: 'manual',
      delivery: { maxRuntimeSeconds: 90, budgetUnits: 250 },
    });
    expect(put.status).toBe(200);
    await fire('detector');
    await settle();

    const claim = await consumeOne('detector', 'detector-1');
    expect(claim).toMatchObject({ triggerId: 'detector', triggerRevision: 1, scheduledAt: null });
    expect(claim.limits).toStrictEqual({ maxRuntimeSeconds: 90, budgetUnits: 250 });
  });

  it('EX-5 a Trigger declaring only a budget hands over only the budget (no null members)', async () => {
    expect((await putTrigger('budgeted', { type: 'manual', delivery: { budgetUnits: 0 } })).status).toBe(200);
    await fire('budgeted');
    await settle();
    expect((await consumeOne('budgeted', 'detector-2')).limits).toStrictEqual({ budgetUnits: 0 });
  });

  it('EX-4 admitted work keeps the policy of the revision that admitted it; a later revision applies to later work', async () => {
    expect((await putTrigger('revised', { type: 'manual', delivery: { maxRuntimeSeconds: 60 } })).status).toBe(200);
    await fire('revised');
    await settle();
    const later = await putTrigger('revised', {
      expectedRevision: 1,
      type: 'manual',
      delivery: { maxRuntimeSeconds: 600 },
    });
    expect(later.status).toBe(200);
    expect((await consumeOne('revised', 'detector-3')).limits).toStrictEqual({ maxRuntimeSeconds: 60 });
    await fire('revised');
    await settle();
    expect((await consumeOne('revised', 'detector-4')).limits).toStrictEqual({ maxRuntimeSeconds: 600 });
  });

  describe('TR-1 the delivery block over HTTP', () => {
    it('reads back with every default written out, on the Trigger and in its revisions', async () => {
      expect(
        (await putTrigger('defaults', { type: 'manual', delivery: { backoff: { initialSeconds: 0.1 } } })).status,
      ).toBe(200);
      const policy = {
        maxAttempts: 5,
        backoff: { initialSeconds: 0.1, multiplier: 2, maxSeconds: 300 },
        claimWithinSeconds: 60,
        maxRuntimeSeconds: null,
        budgetUnits: null,
      };
      const read = await t.request({ method: 'GET', url: '/v1/triggers/defaults' });
      expect(read.status).toBe(200);
      expect(read.body.delivery).toStrictEqual(policy);
      const revisions = await t.request({ method: 'GET', url: '/v1/triggers/defaults/revisions' });
      expect(revisions.body.items[0].definition.delivery).toStrictEqual(policy);
    });

    it('refuses an invalid block with 422 invalid_definition pointing at each faulty member', async () => {
      const put = await putTrigger('broken', {
        type: 'manual',
        delivery: { maxAttempts: 0, backoff: { initialSeconds: 0.01, jitter: true }, budgetUnits: 'lots' },
      });
      expect(put.status).toBe(422);
      expect(put.body.code).toBe('invalid_definition');
      expect(put.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual([
        '/delivery/maxAttempts',
        '/delivery/backoff/jitter',
        '/delivery/backoff/initialSeconds',
        '/delivery/budgetUnits',
      ]);
      expect((await t.request({ method: 'GET', url: '/v1/triggers/broken' })).status).toBe(404);
    });
  });
});
