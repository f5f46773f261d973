import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createWorker, NonRetryableError, type Worker, type WorkerEvent } from '../../src/adapters/client/index.js';
import type { WorkerOptions } from '../../src/adapters/client/worker-options.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { TEST_REDIS_URL } from '../support/redis-server.js';
import { missionGrants } from '../support/grants.js';

const grants = missionGrants({ maxExecutionsPerHour: 5000, maxConcurrent: 1000 });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Counts handlers running at once, and every execution a handler saw. */
function recordingHandler(delayMs: number, gather = 0) {
  const seen: string[] = [];
  let running = 0;
  let maxRunning = 0;
  const handler: WorkerOptions['handler'] = async (claim) => {
    running += 1;
    maxRunning = Math.max(maxRunning, running);
    seen.push(claim.executionId);
    // Holds until `gather` handlers run at once (or 3 s pass), so a loaded machine whose claims take longer than
    // `delayMs` still shows whether the worker fills its concurrency, and never exceeds it.
    const gatherBy = Date.now() + 3000;
    while (running < gather && Date.now() < gatherBy) await sleep(20);
    await sleep(delayMs);
    running -= 1;
    return { receipt: { handled: claim.executionId, input: claim.input } };
  };
  return { handler, seen, maxRunning: () => maxRunning };
}

/** Item 8 of EX delivery: the consumer client against the real service, by long poll or by Redis Streams. */
export function consumerClientSuite(kind: StoreKind, mode: 'pull' | 'redis'): void {
  describe(`consumer client, ${mode} mode (${kind}${mode === 'redis' ? ', Redis' : ''})`, () => {
    let t: TestApp;
    let redis: Redis | undefined;
    let n = 0;
    const stream = `test:client:${randomBytes(6).toString('hex')}`;
    const workers: Worker[] = [];

    beforeAll(async () => {
      t = await startTestApp(kind, {
        env: mode === 'redis' ? { REDIS_URL: TEST_REDIS_URL, REVEILLE_WAKEUP_STREAM: stream } : {},
      });
      if (mode === 'redis') redis = new Redis(TEST_REDIS_URL);
    });
    afterAll(async () => {
      await Promise.all(workers.map((w) => w.stop()));
      await redis?.del(stream);
      redis?.disconnect();
      await t?.close();
    });

    /** Each test its own tenant, so a worker sees only that test's executions. */
    async function setup(delivery?: Record<string, unknown>, limits: Partial<typeof grants> = {}) {
      n += 1;
      const tenant = `tenant-client-${mode}-${n}`;
      const token = await t.token({ tenant });
      const missionId = `m-cl${n}`;
      const triggerId = `t-cl${n}`;
      const mission = await t.request({
        method: 'PUT',
        url: `/v1/missions/${missionId}`,
        key: newKey(),
        token,
        body: { state: 'active', grants: { ...grants, ...limits } },
      });
      expect(mission.status).toBe(200);
      const trigger = await t.request({
        method: 'PUT',
        url: `/v1/triggers/${triggerId}`,
        key: newKey(),
        token,
        body: { expectedRevision: 0, missionId, type: 'manual', ...(delivery ? { delivery } : {}) },
      });
      expect(trigger.status).toBe(200);
      return { token, triggerId, tenant };
    }

    async function fire(s: { token: string; triggerId: string }): Promise<string> {
      const fired = await t.request({
        method: 'POST',
        url: `/v1/triggers/${s.triggerId}/occurrences?wait=decision`,
        key: newKey(),
        token: s.token,
        body: { input: { run: ++n } },
      });
      expect(fired.status).toBe(200);
      expect(fired.body.status).toBe('admitted');
      return fired.body.executionId as string;
    }

    const execution = async (token: string, executionId: string) => {
      const view = await t.request({ method: 'GET', url: `/v1/operator/executions/${executionId}`, token });
      expect(view.status).toBe(200);
      return view.body;
    };

    /** A worker for this test's tenant; in Redis mode it waits until its consumer group exists. */
    async function start(token: string, options: Partial<WorkerOptions> & Pick<WorkerOptions, 'handler'>) {
      const events: WorkerEvent[] = [];
      const group = `workers-${n}`;
      const worker = createWorker({
        baseUrl: t.baseUrl,
        token: async () => token,
        consumerId: `worker-${n}`,
        concurrency: 4,
        // Redis mode: a long block, so every execution must come through the stream, not the idle sweep.
        waitSeconds: mode === 'redis' ? 20 : 1,
        ...(mode === 'redis' ? { redis: { url: TEST_REDIS_URL, stream, group } } : {}),
        onEvent: (event) => events.push(event),
        ...options,
      });
      workers.push(worker);
      if (redis) {
        await until(async () => {
          const groups = (await redis!.xinfo('GROUPS', stream).catch(() => [])) as unknown[][];
          return groups.some((g) => g.includes(group));
        }, 'the consumer group');
      }
      const completed = () => events.filter((e) => e.type === 'completed').length;
      return { worker, events, completed, group };
    }

    it('completes every fired execution exactly once, never more than `concurrency` handlers at once', async () => {
      const s = await setup();
      const recording = recordingHandler(400, 4);
      const { worker, events, completed, group } = await start(s.token, { handler: recording.handler });
      // A burst, so more work is claimable at once than the worker may run.
      const fired = await Promise.all(Array.from({ length: 12 }, () => fire(s)));
      await until(() => completed() === fired.length, `${fired.length} completions`);
      await worker.stop();

      expect([...recording.seen].sort()).toEqual([...fired].sort());
      expect(recording.maxRunning()).toBe(4);
      expect(events.filter((e) => e.type === 'error')).toEqual([]);
      for (const executionId of fired) {
        const view = await execution(s.token, executionId);
        expect(view).toMatchObject({
          status: 'completed',
          fence: 1,
          completion: { outcome: 'succeeded', receipt: { handled: executionId } },
        });
        expect(view.history.filter((e: { type: string }) => e.type === 'ExecutionClaimed')).toHaveLength(1);
      }
      if (redis) {
        // Every wakeup was read through the group and acknowledged after its claim attempt.
        const pending = (await redis.xpending(stream, group)) as [number, ...unknown[]];
        expect(pending[0]).toBe(0);
        const [[lastEntry]] = (await redis.xrevrange(stream, '+', '-', 'COUNT', 1)) as unknown as [[string]];
        const groups = (await redis.xinfo('GROUPS', stream)) as unknown[][];
        const info = groups.find((g) => g.includes(group))!;
        expect(info[info.indexOf('last-delivered-id') + 1]).toBe(lastEntry);
      }
    });

    it('EX-1 work whose wakeups the worker never saw is swept up at once, as many as it has free slots', async () => {
      const s = await setup();
      // Admitted before the worker's consumer group exists: their wakeups lie before the group's start
      const fired = [await fire(s), await fire(s), await fire(s)];
      // Claim-next offers what its read model holds: all three, before the sweep this test times (a loaded machine
      // folded the last one after the first sweep, which is not what this shows)
      await until(async () => {
        const { rows } = await t.sql.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM rm_pending_executions WHERE tenant = $1 AND NOT claimed',
          [s.tenant],
        );
        return rows[0]!.n === fired.length;
      }, 'the pending read model to hold all three');
      const started: number[] = [];
      const { worker, completed } = await start(s.token, {
        waitSeconds: 4,
        handler: async (claim) => {
          started.push(Date.now());
          await sleep(200);
          return { receipt: { handled: claim.executionId } };
        },
      });
      await until(() => completed() === fired.length, `${fired.length} completions`);
      await worker.stop();
      // One sweep takes all three; one claim-next per quiet period took them four seconds apart (a loaded machine
      // spread one sweep's three claims over 1.6 s)
      expect(Math.max(...started) - Math.min(...started)).toBeLessThan(3_000);
    });

    it('EX-4 a thrown error is retried (a new generation) until maxAttempts, then dead-lettered; a NonRetryableError ends failed', async () => {
      const s = await setup({
        maxAttempts: 2,
        backoff: { initialSeconds: 0.2, multiplier: 2, maxSeconds: 10 },
        claimWithinSeconds: 30,
      });
      const calls: Array<{ run: number; generation: number; attempt?: number }> = [];
      const { worker, completed } = await start(s.token, {
        handler: async (claim) => {
          const run = (claim.input as { run: number }).run;
          calls.push({ run, generation: claim.generation, attempt: claim.attempt });
          if (run % 2 === 0) throw new Error('flaky downstream');
          throw new NonRetryableError('bad input', 'invalid_input');
        },
      });
      const fired = [await fire(s), await fire(s)];
      // Each attempt is one completion: two for the retried execution, one for the other.
      await until(() => completed() === 3, 'three completions');
      await worker.stop();
      const statuses = await Promise.all(fired.map(async (id) => (await execution(s.token, id)).status));
      expect(statuses.sort()).toEqual(['dead_lettered', 'failed']);
      const retried = calls.filter((c) => c.run % 2 === 0);
      expect(retried.map(({ generation, attempt }) => ({ generation, attempt }))).toEqual([
        { generation: 1, attempt: 1 },
        { generation: 2, attempt: 2 },
      ]);
      expect(calls.filter((c) => c.run % 2 === 1)).toHaveLength(1);
    });

    it('stop() takes no new work and waits for the handler still running', async () => {
      const s = await setup();
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let started = 0;
      const { worker } = await start(s.token, {
        concurrency: 1,
        handler: async () => {
          started += 1;
          await released;
        },
      });
      const first = await fire(s);
      await until(() => started === 1, 'the handler to start');
      let stopped = false;
      const stopping = worker.stop().then(() => (stopped = true));
      const second = await fire(s);
      await sleep(1500);
      expect(stopped).toBe(false);
      expect((await execution(s.token, first)).status).toBe('claimed');
      release();
      await stopping;
      expect(started).toBe(1);
      expect(await execution(s.token, first)).toMatchObject({ status: 'completed' });
      expect((await execution(s.token, second)).status).toBe('pending');
    });

    it('AD-2 EX-1 a Mission at maxConcurrent 1 drains its queue as each handler ends, not one per quiet period', async () => {
      const s = await setup(undefined, { maxConcurrent: 1 });
      const { worker, completed } = await start(s.token, recordingHandler(50));
      // Wakeups for all three arrive at once; two are refused 409 concurrency_limit while the first runs.
      await Promise.all([fire(s), fire(s), fire(s)]);
      // Redis mode blocks 20 s per read: a skipped wakeup waited for the periodic sweep, twice (≥ 40 s). The slot
      // freed is offered once the service's read model folded the end (a loaded machine took over a second).
      await until(() => completed() === 3, 'three completions', 15_000);
      await worker.stop();
    });

    if (mode === 'redis')
      it('EX-1 a stopped worker with nothing pending leaves its consumer group: restarts do not pile up consumers', async () => {
        const s = await setup();
        const { worker, completed, group } = await start(s.token, recordingHandler(0));
        const consumerId = `worker-${n}`;
        await fire(s);
        await until(() => completed() === 1, 'one completion');
        const consumers = async () =>
          ((await redis!.xinfo('CONSUMERS', stream, group)) as unknown[][]).map((c) => c[c.indexOf('name') + 1]);
        expect(await consumers()).toEqual([consumerId]);
        await worker.stop();
        expect(await consumers()).toEqual([]);
      });
  });
}
