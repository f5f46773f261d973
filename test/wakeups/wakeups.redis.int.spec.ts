import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { WAKEUP_DISPATCHER, WakeupDispatcher } from '../../src/adapters/wakeup/index.js';
import { WAKEUP_EVENT_TYPES } from '../../src/domain/execution/wakeup.js';
import { loadCheckpoint, resetCheckpoint } from '../../src/projections/runner/checkpoints.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { PrivateRedis, streamEntries, TEST_REDIS_URL } from '../support/redis-server.js';
import { Redis as RedisClient } from 'ioredis';
import { claim, fireAndAdmit, manualTrigger, until } from './wakeups.support.js';

const byExecution = (a: Record<string, string>, b: Record<string, string>) =>
  a.executionId! < b.executionId! ? -1 : 1;
const stream = () => `test:wakeups:${randomBytes(6).toString('hex')}`;

/** The log position of the first of `count` wakeup events after `after`, once all of them are readable. */
async function firstWakeupAfter(t: TestApp, after: number, count: number): Promise<number> {
  let wakeups: number[] = [];
  await until(async () => {
    const events = await t.infra.store.readAll({ after, maxCount: 1_000 });
    wakeups = events.filter((e) => (WAKEUP_EVENT_TYPES as readonly string[]).includes(e.type)).map((e) => e.position);
    return wakeups.length >= count;
  });
  return wakeups[0]!;
}

describe('EX-1 wakeup dispatcher: the log is the outbox, Redis Streams the transport (PostgreSQL, Redis)', () => {
  describe('on the shared Redis', () => {
    let t: TestApp;
    let redis: Redis;
    const name = stream();
    const dispatcher = () => t.app.get(WakeupDispatcher);

    beforeAll(async () => {
      t = await startTestApp('postgres', {
        autostart: false,
        env: { REDIS_URL: TEST_REDIS_URL, REVEILLE_WAKEUP_STREAM: name },
      });
      redis = new RedisClient(TEST_REDIS_URL);
    });
    afterAll(async () => {
      await redis?.del(name);
      redis?.disconnect();
      await t?.close();
    });

    it('every admitted execution is one stream entry with the fields of the spec; consumer groups read it', async () => {
      const { missionId, triggerId } = await manualTrigger(t);
      await redis.xgroup('CREATE', name, 'workers', '$', 'MKSTREAM');
      const executions = await fireAndAdmit(t, triggerId, 3);
      expect(await streamEntries(redis, name)).toEqual([]);
      await dispatcher().subscription.catchUp();
      const entries = await streamEntries(redis, name);
      // Stream order is log order: one Mission's admissions are decided together, not in firing order.
      expect(entries.sort(byExecution)).toEqual(
        [...executions].sort().map((executionId) => ({
          executionId,
          generation: '1',
          attempt: '1',
          tenant: 'tenant-a',
          missionId,
          triggerId,
          lane: expect.any(String),
        })),
      );
      const read = (await redis.xreadgroup('GROUP', 'workers', 'w-1', 'COUNT', 10, 'STREAMS', name, '>')) as Array<
        [string, Array<[string, string[]]>]
      >;
      expect(read[0]![1].map(([, fields]) => fields[1]).sort()).toEqual([...executions].sort());
      expect(await loadCheckpoint(t.sql, WAKEUP_DISPATCHER)).toBe(await t.infra.store.headPosition());
    });

    it('a replay from an older checkpoint sends duplicates; the claim fence still hands each execution out once', async () => {
      const { triggerId } = await manualTrigger(t);
      const [first, second] = await fireAndAdmit(t, triggerId, 2);
      await dispatcher().subscription.catchUp();
      const sent = (await streamEntries(redis, name)).length;
      // A crash after XADD and before the checkpoint commit: the next dispatcher starts from the old one.
      await resetCheckpoint(t.sql, WAKEUP_DISPATCHER);
      dispatcher().subscription.forgetCheckpoint();
      await dispatcher().subscription.catchUp();
      const entries = await streamEntries(redis, name);
      expect(entries.length).toBeGreaterThan(sent);
      expect(entries.filter((e) => e.executionId === first)).toHaveLength(2);
      expect(entries.filter((e) => e.executionId === second)).toHaveLength(2);
      // Two consumers act on the two wakeups of one execution.
      expect((await claim(t, first!, 'worker-1')).status).toBe(200);
      const again = await claim(t, first!, 'worker-2');
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('already_claimed');
    });
  });

  describe('Redis stopped during a run', () => {
    let t: TestApp;
    let redis: PrivateRedis;
    const name = stream();
    const dispatcher = () => t.app.get(WakeupDispatcher);

    beforeAll(async () => {
      redis = await PrivateRedis.start();
      t = await startTestApp('postgres', {
        autostart: false,
        env: { REDIS_URL: redis.url, REVEILLE_WAKEUP_STREAM: name },
      });
    });
    afterAll(async () => {
      await t?.close();
      await redis?.stop();
    });

    it('nothing is lost: the checkpoint waits for Redis, readiness shows the lag, sending resumes by itself', async () => {
      const { triggerId } = await manualTrigger(t);
      const before = await fireAndAdmit(t, triggerId, 2);
      await dispatcher().subscription.catchUp();
      const client = redis.client();
      expect((await streamEntries(client, name)).map((e) => e.executionId).sort()).toEqual([...before].sort());
      client.disconnect();
      const delivered = await loadCheckpoint(t.sql, WAKEUP_DISPATCHER);

      await redis.stop();
      const during = await fireAndAdmit(t, triggerId, 3);
      const firstWakeup = await firstWakeupAfter(t, delivered, during.length);
      const passed = async () =>
        t.infra.store.isAtOrBefore(firstWakeup, await loadCheckpoint(t.sql, WAKEUP_DISPATCHER));
      // A read before the admissions are visible (held back behind another suite's open transaction, rule 1)
      // passes the Occurrences without a wakeup, and may advance past them: only a wakeup waits for Redis.
      await until(() =>
        dispatcher()
          .subscription.runOnce()
          .then(
            () => false,
            () => true,
          ),
      );
      expect(await passed()).toBe(false);

      // The sending loop runs on its own from here, retrying with backoff.
      dispatcher().subscription.start();
      const ready = await t.request({ method: 'GET', url: '/health/ready', token: null });
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('degraded');
      expect(ready.body.info.store.status).toBe('up');
      expect(ready.body.info.wakeups).toMatchObject({ status: 'degraded', transport: 'redis', stream: name });
      expect(ready.body.info.wakeups.behind).toBeGreaterThan(0);
      expect(ready.body.info.wakeups.error).toEqual(expect.any(String));
      // Ingress is still served while wakeups wait.
      expect(await fireAndAdmit(t, triggerId, 1)).toHaveLength(1);
      expect(await passed()).toBe(false);

      await redis.start(); // same port, empty: the entries sent before went with the old process
      const back = redis.client();
      try {
        await until(async () => (await streamEntries(back, name)).length >= 4);
        const entries = (await streamEntries(back, name)).map((e) => e.executionId);
        expect(entries).toHaveLength(4);
        expect(entries.slice(0, 3).sort()).toEqual([...during].sort());
        await until(
          async () => (await loadCheckpoint(t.sql, WAKEUP_DISPATCHER)) === (await t.infra.store.headPosition()),
        );
        await until(async () => {
          const healthy = await t.request({ method: 'GET', url: '/health/ready', token: null });
          return healthy.body.info?.wakeups?.status === 'up' && healthy.body.info.wakeups.behind === 0;
        });
      } finally {
        back.disconnect();
        await dispatcher().subscription.stop();
      }
    });
  });
});
