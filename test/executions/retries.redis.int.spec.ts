import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { startTestApp, type TestApp } from '../support/app.js';
import { streamEntries, TEST_REDIS_URL } from '../support/redis-server.js';
import { retryFixture, until } from './retries.shared.js';

/** EX-1 EX-4: a redelivery is a wakeup like an admission: one stream entry naming its generation and attempt. */
describe('EX-4 redeliveries reach Redis Streams (PostgreSQL, Redis)', () => {
  const stream = `test:retries:${randomBytes(6).toString('hex')}`;
  let t: TestApp;
  let redis: Redis;
  const f = retryFixture(() => t);

  beforeAll(async () => {
    t = await startTestApp('postgres', {
      env: { REDIS_URL: TEST_REDIS_URL, REVEILLE_WAKEUP_STREAM: stream, REVEILLE_DELIVERY_POLL_MS: '100' },
    });
    redis = new Redis(TEST_REDIS_URL);
  });
  afterAll(async () => {
    await redis?.del(stream);
    redis?.disconnect();
    await t?.close();
  });

  it('EX-4 a retry and an unclaimed redelivery are each one entry with their generation and attempt', async () => {
    const { missionId, triggerId } = await f.setup({
      maxAttempts: 3,
      backoff: { initialSeconds: 0.2, multiplier: 2, maxSeconds: 10 },
      // Long enough for the claim below on a loaded machine: at 0.5 s a full run once redelivered generation 1 first.
      claimWithinSeconds: 2,
    });
    const executionId = await f.admitted(triggerId);
    const { fence } = (await f.claim(executionId)).body;
    expect((await f.fail(executionId, fence)).body.status).toBe('retrying');
    // Not claimed again: after the retry (generation 2, attempt 2) its window passes too (attempt 3, same generation).
    await until(() => f.eventOf(executionId, 'ExecutionRedelivered', 2), 'the unclaimed redelivery');
    const entries = await until(async () => {
      const mine = (await streamEntries(redis, stream)).filter((e) => e.executionId === executionId);
      return mine.length === 3 && mine;
    }, 'three wakeups');
    const owner = { executionId, tenant: 'tenant-a', missionId, triggerId, lane: expect.any(String) };
    expect(entries).toEqual([
      { ...owner, generation: '1', attempt: '1' },
      { ...owner, generation: '2', attempt: '2' },
      { ...owner, generation: '2', attempt: '3' },
    ]);
  });
});
