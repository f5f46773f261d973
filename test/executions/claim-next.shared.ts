import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';
import { missionSlotEvents } from '../support/mission-slots.js';
import { aggregateCache } from '../../src/commands/shared/aggregate-cache.js';
import { SLOT_STRIPES } from '../../src/domain/admission/index.js';
import { concurrencyStripeStream } from '../../src/domain/shared/ids.js';

const grants = missionGrants({ maxExecutionsPerHour: 5000, maxConcurrent: 1000 });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** EX-2 pull API (claim-next) and AD-2 concurrency over claimed work, with admission and read models running. */
export function claimNextSuite(kind: StoreKind): void {
  describe(`executions: claim-next and Mission concurrency over claims (${kind})`, () => {
    let t: TestApp;
    let n = 0;

    beforeAll(async () => {
      t = await startTestApp(kind);
    });
    afterAll(async () => {
      await t?.close();
    });

    /** Each test its own tenant: claim-next hands out the whole tenant's work. */
    async function setup(
      options: { mission?: Partial<typeof grants>; trigger?: Record<string, unknown>; tenant?: string } = {},
    ) {
      n += 1;
      const tenant = options.tenant ?? `tenant-c${n}`;
      const token = await t.token({ tenant });
      const missionId = `m-c${n}`;
      const triggerId = `t-c${n}`;
      const mission = await t.request({
        method: 'PUT',
        url: `/v1/missions/${missionId}`,
        key: newKey(),
        token,
        body: { state: 'active', grants: { ...grants, ...options.mission } },
      });
      expect(mission.status).toBe(200);
      const trigger = await t.request({
        method: 'PUT',
        url: `/v1/triggers/${triggerId}`,
        key: newKey(),
        token,
        body: { expectedRevision: 0, missionId, type: 'manual', ...options.trigger },
      });
      expect(trigger.status).toBe(200);
      return { tenant, token, missionId, triggerId };
    }

    /** Fires and waits for the admission: returns the execution id. */
    async function fire(s: { token: string; triggerId: string }, input: unknown = { run: ++n }): Promise<string> {
      const fired = await t.request({
        method: 'POST',
        url: `/v1/triggers/${s.triggerId}/occurrences?wait=decision`,
        key: newKey(),
        token: s.token,
        body: { input },
      });
      expect(fired.status).toBe(200);
      expect(fired.body.status).toBe('admitted');
      return fired.body.executionId as string;
    }

    const claimNext = (token: string, body: Record<string, unknown> = {}) =>
      t.request({
        method: 'POST',
        url: '/v1/executions/claim-next',
        key: newKey(),
        token,
        body: { consumerId: 'worker', ...body },
      });
    const complete = (token: string, executionId: string, fence: number) =>
      t.request({
        method: 'POST',
        url: `/v1/executions/${executionId}/complete`,
        key: newKey(),
        token,
        body: { fence, outcome: 'succeeded' },
      });

    it('EX-2 hands out the oldest claimable execution in acceptance order, then 204 after waitSeconds', async () => {
      const s = await setup();
      const fired = [await fire(s), await fire(s), await fire(s)];
      const claimed = [];
      for (let i = 0; i < 3; i++) {
        const answer = await claimNext(s.token, { waitSeconds: 5 });
        expect(answer.status).toBe(200);
        claimed.push(answer.body);
      }
      expect(claimed.map((c) => c.executionId)).toEqual(fired);
      expect(claimed[0]).toMatchObject({
        fence: 1,
        generation: 1,
        triggerId: s.triggerId,
        missionId: s.missionId,
        input: { run: expect.any(Number) },
        lane: `trigger:${s.triggerId}`,
      });
      const started = Date.now();
      const none = await claimNext(s.token, { waitSeconds: 1 });
      expect(none.status).toBe(204);
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    });

    it('EX-2 a waiting claim-next wakes when an execution is admitted during the wait', async () => {
      const s = await setup();
      const started = Date.now();
      const waiting = claimNext(s.token, { waitSeconds: 15 });
      await sleep(300);
      const executionId = await fire(s);
      const answer = await waiting;
      expect(answer.status).toBe(200);
      expect(answer.body.executionId).toBe(executionId);
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it("SEC-1 claim-next only sees the caller's tenant; filters narrow to a Mission or Trigger", async () => {
      const a = await setup();
      const b = await setup();
      const executionId = await fire(a);
      expect((await claimNext(b.token, { waitSeconds: 1 })).status).toBe(204);
      expect((await claimNext(a.token, { waitSeconds: 1, triggerId: 'another-trigger' })).status).toBe(204);
      const answer = await claimNext(a.token, { waitSeconds: 5, missionId: a.missionId, triggerId: a.triggerId });
      expect([answer.status, answer.body.executionId]).toEqual([200, executionId]);
      const unscoped = await claimNext(await t.token({ tenant: a.tenant, scope: 'operator:read' }));
      expect(unscoped.status).toBe(403);
      expect((await claimNext(a.token, { waitSeconds: 21 })).status).toBe(400);
    });

    it('EX-2 claim-next takes fractional waitSeconds within 0–20 (api.md), and refuses what is outside or not a number', async () => {
      const s = await setup();
      const started = Date.now();
      const half = await claimNext(s.token, { waitSeconds: 0.5 });
      const waited = Date.now() - started;
      expect(half.status).toBe(204);
      expect(waited).toBeGreaterThanOrEqual(450);
      expect(waited).toBeLessThan(1_500);
      const executionId = await fire(s);
      const claimed = await claimNext(s.token, { waitSeconds: 19.75 });
      expect([claimed.status, claimed.body.executionId]).toEqual([200, executionId]);
      for (const waitSeconds of [20.5, -0.5, '0.5']) {
        const refused = await claimNext(s.token, { waitSeconds });
        expect([waitSeconds, refused.status, refused.body.errors?.[0]?.pointer]).toEqual([
          waitSeconds,
          400,
          '/waitSeconds',
        ]);
      }
    });

    it('AD-5 one execution at a time per resource lane: the next on a lane waits until the first ends', async () => {
      const s = await setup({ trigger: { queueByPointer: '/repo' } });
      const api1 = await fire(s, { repo: 'api', n: 1 });
      const api2 = await fire(s, { repo: 'api', n: 2 });
      const web = await fire(s, { repo: 'web', n: 3 });
      const first = await claimNext(s.token, { waitSeconds: 5 });
      expect([first.body.executionId, first.body.lane]).toEqual([api1, 'resource:api']);
      // The read model may not show the first claim yet: a stale candidate is skipped, never shared.
      const second = await claimNext(s.token, { waitSeconds: 5 });
      expect(second.body.executionId).toBe(web);
      expect((await claimNext(s.token, { waitSeconds: 1 })).status).toBe(204);
      expect((await complete(s.token, api1, first.body.fence)).status).toBe(200);
      const third = await claimNext(s.token, { waitSeconds: 5 });
      expect([third.status, third.body.executionId]).toEqual([200, api2]);
    });

    const claim = (token: string, executionId: string, consumerId = 'worker') =>
      t.request({
        method: 'POST',
        url: `/v1/executions/${executionId}/claim`,
        key: newKey(),
        token,
        body: { consumerId },
      });

    it('AD-5 an explicit claim keeps the lane too: the second of a lane, or one behind a retrying head, is lane_busy until the head ends', async () => {
      const s = await setup({ trigger: { queueByPointer: '/repo', delivery: { backoff: { initialSeconds: 30 } } } });
      const api1 = await fire(s, { repo: 'api', n: 1 });
      const api2 = await fire(s, { repo: 'api', n: 2 });
      const web = await fire(s, { repo: 'web', n: 3 });
      // The Redis worker's path: the wakeup of the second arrives first
      const early = await claim(s.token, api2);
      expect(early.status).toBe(409);
      expect(early.body).toMatchObject({ code: 'lane_busy' });
      expect(early.body.detail).toContain(api1);
      expect((await claim(s.token, web)).status).toBe(200);
      const head = await claim(s.token, api1);
      expect(head.status).toBe(200);
      expect((await claim(s.token, api2)).body.code).toBe('lane_busy');
      // A retryable failure keeps the head's place on its lane while it waits for its backoff
      const failed = await t.request({
        method: 'POST',
        url: `/v1/executions/${api1}/complete`,
        key: newKey(),
        token: s.token,
        body: { fence: head.body.fence, outcome: 'failed', retryable: true, error: { code: 'e', message: 'm' } },
      });
      expect([failed.status, failed.body.status]).toEqual([200, 'retrying']);
      expect((await claim(s.token, api2)).body.code).toBe('lane_busy');
    });

    it('AD-5 once the head of a lane ended, the next is claimed explicitly', async () => {
      const s = await setup({ trigger: { queueByPointer: '/repo' } });
      const api1 = await fire(s, { repo: 'api', n: 1 });
      const api2 = await fire(s, { repo: 'api', n: 2 });
      const head = await claim(s.token, api1);
      expect((await complete(s.token, api1, head.body.fence)).status).toBe(200);
      const next = await claim(s.token, api2);
      expect([next.status, next.body.executionId]).toEqual([200, api2]);
    });

    it.each([
      ['paused', 'mission_paused'],
      ['cancelled', 'mission_cancelled'],
      ['revoked', 'mission_revoked'],
    ])(
      'AD-2 work admitted before its Mission was %s is not handed out: claim is claim_refused %s, claim-next passes it over',
      async (state, reason) => {
        const s = await setup();
        const executionId = await fire(s);
        const revised = await t.request({
          method: 'PUT',
          url: `/v1/missions/${s.missionId}`,
          key: newKey(),
          token: s.token,
          body: { state, grants },
        });
        expect(revised.status).toBe(200);
        const refused = await claim(s.token, executionId);
        expect(refused.status).toBe(409);
        expect(refused.body).toMatchObject({ code: 'claim_refused', reason });
        expect((await claimNext(s.token, { waitSeconds: 0.5 })).status).toBe(204);
        const execution = await t.request({
          method: 'GET',
          url: `/v1/operator/executions/${executionId}`,
          token: s.token,
        });
        expect(execution.body.status).toBe('pending');
      },
    );

    it("AD-2 a paused Mission's backlog does not starve another Mission's work behind it (claim-next reads past it)", async () => {
      const paused = await setup();
      for (let i = 0; i < 40; i++) await fire(paused);
      const other = await setup({ tenant: paused.tenant });
      const runs = await fire(other);
      const revised = await t.request({
        method: 'PUT',
        url: `/v1/missions/${paused.missionId}`,
        key: newKey(),
        token: paused.token,
        body: { state: 'paused', grants },
      });
      expect(revised.status).toBe(200);
      const answer = await claimNext(paused.token, { waitSeconds: 5 });
      expect([answer.status, answer.body.executionId]).toEqual([200, runs]);
    });

    it('AD-2 a paused Mission holds its work; active again, it is handed out', async () => {
      const s = await setup();
      const executionId = await fire(s);
      const revise = (state: string) =>
        t.request({
          method: 'PUT',
          url: `/v1/missions/${s.missionId}`,
          key: newKey(),
          token: s.token,
          body: { state, grants },
        });
      expect((await revise('paused')).status).toBe(200);
      expect((await claimNext(s.token, { waitSeconds: 0.5 })).status).toBe(204);
      expect((await revise('active')).status).toBe(200);
      const answer = await claimNext(s.token, { waitSeconds: 5 });
      expect([answer.status, answer.body.executionId]).toEqual([200, executionId]);
    });

    it('AD-2 a burst over maxConcurrent all completes, never more than the limit claimed at once', async () => {
      const limit = 2;
      const s = await setup({ mission: { maxConcurrent: limit } });
      const burst = 10;
      const fired = [];
      for (let i = 0; i < burst; i++) fired.push(await fire(s));
      let running = 0;
      let mostRunning = 0;
      const completed: string[] = [];
      const worker = async (w: number) => {
        while (completed.length < burst) {
          const answer = await claimNext(s.token, { consumerId: `w-${w}`, waitSeconds: 1 });
          if (answer.status === 204) continue;
          expect(answer.status).toBe(200);
          running += 1;
          mostRunning = Math.max(mostRunning, running);
          await sleep(30);
          running -= 1;
          expect((await complete(s.token, answer.body.executionId, answer.body.fence)).status).toBe(200);
          completed.push(answer.body.executionId);
        }
      };
      await Promise.all([0, 1, 2, 3, 4].map(worker));
      expect([...completed].sort()).toEqual([...fired].sort());
      expect(mostRunning).toBeLessThanOrEqual(limit);
      const slots = await missionSlotEvents(t.infra.store, s.tenant, s.missionId);
      expect(Math.max(...slots.map((e) => e.running))).toBe(limit);
      expect(slots.filter((e) => e.type === 'ExecutionSlotsTaken')).toHaveLength(burst);
    });

    it('AD-2 a Trigger opting into onConcurrencyLimit block still blocks at admission; an unknown mode is refused', async () => {
      const s = await setup({
        mission: { maxConcurrent: 1 },
        trigger: { constraints: { onConcurrencyLimit: 'block' } },
      });
      await fire(s);
      const blocked = await t.request({
        method: 'POST',
        url: `/v1/triggers/${s.triggerId}/occurrences?wait=decision`,
        key: newKey(),
        token: s.token,
        body: { input: { run: 'over' } },
      });
      expect(blocked.body).toMatchObject({ status: 'blocked', reason: 'concurrency_limit' });
      const invalid = await t.request({
        method: 'PUT',
        url: `/v1/triggers/t-invalid-${n}`,
        key: newKey(),
        token: s.token,
        body: {
          expectedRevision: 0,
          missionId: s.missionId,
          type: 'manual',
          constraints: { onConcurrencyLimit: 'drop' },
        },
      });
      expect(invalid.status).toBe(422);
    });

    if (kind === 'postgres')
      it('EX-2 twenty racing claim-next consumers over 200 executions: each claimed exactly once', async () => {
        const s = await setup();
        const total = 200;
        const fired: string[] = [];
        for (let i = 0; i < total; i += 20)
          fired.push(...(await Promise.all(Array.from({ length: 20 }, (_, j) => fire(s, { run: i + j })))));
        const claimed: string[] = [];
        const consumer = async (c: number) => {
          let idle = 0;
          while (claimed.length < total && idle < 5) {
            const answer = await claimNext(s.token, { consumerId: `racer-${c}`, waitSeconds: 1 });
            if (answer.status === 204) {
              idle += 1;
              continue;
            }
            expect(answer.status).toBe(200);
            claimed.push(answer.body.executionId);
          }
        };
        await Promise.all(Array.from({ length: 20 }, (_, c) => consumer(c)));
        expect(claimed).toHaveLength(total);
        expect(new Set(claimed).size).toBe(total);
        expect([...claimed].sort()).toEqual([...fired].sort());
        const claims = await t.sql.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM events WHERE type = 'ExecutionClaimed' AND data->>'tenant' = $1`,
          [s.tenant],
        );
        expect(claims.rows[0]!.n).toBe(total);
      }, 120_000);

    if (kind === 'postgres')
      it('AD-2 EX-2 twenty racing consumers of ONE Mission at maxConcurrent 20 all get work at once, never a 21st claim', async () => {
        const limit = 20;
        const s = await setup({ mission: { maxConcurrent: limit } });
        await Promise.all(Array.from({ length: 25 }, (_, i) => fire(s, { run: i })));
        const started = Date.now();
        const answers = await Promise.all(
          Array.from({ length: limit }, (_, c) => claimNext(s.token, { consumerId: `one-${c}`, waitSeconds: 10 })),
        );
        const took = Date.now() - started;
        expect(answers.map((a) => a.status)).toEqual(Array.from({ length: limit }, () => 200));
        expect(new Set(answers.map((a) => a.body.executionId)).size).toBe(limit);
        // One slot stream per Mission made these wait on each other (~0.8 s per claim at 20 consumers: ≈ 16 s); they
        // take ≈ 1–3 s now. Half the serialized time leaves room for a CI machine twice as slow as these.
        expect(took).toBeLessThan(8_000);
        // Five still wait, but the Mission is full: the 21st consumer gets none.
        expect((await claimNext(s.token, { consumerId: 'one-over', waitSeconds: 1 })).status).toBe(204);
        const [first] = answers;
        expect((await complete(s.token, first!.body.executionId, first!.body.fence)).status).toBe(200);
        expect((await claimNext(s.token, { consumerId: 'one-over', waitSeconds: 5 })).status).toBe(200);
        const slots = await missionSlotEvents(t.infra.store, s.tenant, s.missionId);
        expect(Math.max(...slots.map((e) => e.running))).toBe(limit);
        // At maxConcurrent 20 each of 20 stripes holds one slot: the claims spread over all of them.
        expect(new Set(slots.map((e) => e.stripe)).size).toBe(limit);
      }, 60_000);

    it('AD-2 a completion deciding from remembered slot stripes that fell behind still frees the slot it holds', async () => {
      const s = await setup({ mission: { maxConcurrent: 20 } });
      // A take lands on a stripe at random; one off stripe 0 is wanted (a release that finds no slot held falls to 0).
      let claimed: { executionId: string; fence: number; stripe: number } | undefined;
      for (let tries = 0; tries < 20 && !claimed; tries += 1) {
        await fire(s);
        const answer = await claimNext(s.token, { consumerId: 'behind', waitSeconds: 5 });
        expect(answer.status).toBe(200);
        const { executionId, fence } = answer.body as { executionId: string; fence: number };
        const taken = (await missionSlotEvents(t.infra.store, s.tenant, s.missionId)).find(
          (e) => e.type === 'ExecutionSlotsTaken' && e.executionIds.includes(executionId),
        )!;
        if (taken.stripe !== 0) claimed = { executionId, fence, stripe: taken.stripe };
        else expect((await complete(s.token, executionId, fence)).status).toBe(200);
      }
      // What a slower load of the stripe, finishing after the take's append, used to leave in this process's memory.
      const cache = aggregateCache(t.infra.store);
      for (let stripe = 0; stripe < SLOT_STRIPES; stripe += 1) {
        const streamId = concurrencyStripeStream(s.tenant, s.missionId, stripe);
        const events = await t.infra.store.readStream(streamId);
        const last = events.at(-1);
        const behind = stripe === claimed!.stripe ? events.at(-2) : last;
        cache.set(streamId, {
          state: { running: (behind?.data as { running?: number } | undefined)?.running ?? 0 },
          revision: behind?.revision ?? -1,
          position: behind?.position ?? 0,
        });
      }
      expect((await complete(s.token, claimed!.executionId, claimed!.fence)).status).toBe(200);
      const slots = await missionSlotEvents(t.infra.store, s.tenant, s.missionId);
      expect(slots.at(-1)!.running).toBe(0);
      expect(slots.at(-1)!.executionIds).toEqual([claimed!.executionId]);
    });

    if (kind === 'postgres')
      it('AD-2 twenty consumers churning through one Mission at maxConcurrent 20 never hold more than 20', async () => {
        const limit = 20;
        const s = await setup({ mission: { maxConcurrent: limit } });
        const total = 100;
        for (let i = 0; i < total; i += 25)
          await Promise.all(Array.from({ length: 25 }, (_, j) => fire(s, { run: i + j })));
        let running = 0;
        let mostRunning = 0;
        const completed: string[] = [];
        const consumer = async (c: number) => {
          let idle = 0;
          while (completed.length < total && idle < 5) {
            const answer = await claimNext(s.token, { consumerId: `churn-${c}`, waitSeconds: 1 });
            if (answer.status === 204) {
              idle += 1;
              continue;
            }
            expect(answer.status).toBe(200);
            running += 1;
            mostRunning = Math.max(mostRunning, running);
            await sleep(5);
            running -= 1;
            expect((await complete(s.token, answer.body.executionId, answer.body.fence)).status).toBe(200);
            completed.push(answer.body.executionId);
          }
        };
        await Promise.all(Array.from({ length: 20 }, (_, c) => consumer(c)));
        expect(new Set(completed).size).toBe(total);
        expect(mostRunning).toBeLessThanOrEqual(limit);
        const slots = await missionSlotEvents(t.infra.store, s.tenant, s.missionId);
        expect(Math.max(...slots.map((e) => e.running))).toBeLessThanOrEqual(limit);
        expect(slots.at(-1)!.running).toBe(0);
      }, 120_000);
  });
}
