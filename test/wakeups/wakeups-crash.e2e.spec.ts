import { randomBytes } from 'node:crypto';
import { WAKEUP_DISPATCHER } from '../../src/adapters/wakeup/index.js';
import { loadCheckpoint } from '../../src/projections/runner/checkpoints.js';
import { type ServeProcess, startServe } from '../support/serve-process.js';
import { PrivateRedis, streamEntries } from '../support/redis-server.js';
import { until } from './wakeups.support.js';

const GRANTS = {
  maxExecutionsPerHour: 100,
  maxConcurrent: 10,
  resourceScopes: [],
  classification: 'internal',
  acceptLowerTrust: false,
  maxCausalDepth: 4,
};

/** EX-1 with a real process: Redis is down from before the admission until after the SIGKILL, so no send can win. */
describe.each(['on', 'thread'] as const)(
  'EX-1 crash after the admission commit, before the wakeup (REVEILLE_BACKGROUND=%s)',
  (background) => {
    let serve: ServeProcess;
    let redis: PrivateRedis;
    const stream = `test:wakeups:${randomBytes(6).toString('hex')}`;

    beforeAll(async () => {
      redis = await PrivateRedis.start();
      serve = await startServe({
        background,
        scope: 'missions:write triggers:write occurrences:write executions:write operator:read',
        env: { REDIS_URL: redis.url, REVEILLE_WAKEUP_STREAM: stream },
        degradedIsReady: true,
      });
    }, 180_000);
    afterAll(async () => {
      await serve?.close();
      await redis?.stop();
    });

    it('the restarted service sends exactly one wakeup for it, and the execution is claimed once', async () => {
      expect((await serve.call('PUT', '/v1/missions/m-1', { state: 'active', grants: GRANTS })).status).toBe(200);
      expect((await serve.call('PUT', '/v1/triggers/t-1', { missionId: 'm-1', type: 'manual' })).status).toBe(200);
      // Readiness waits for the background thread (OP-4); one decided fire before the outage still proves admission runs.
      const warmUp = async () =>
        (await serve.call('POST', '/v1/triggers/t-1/occurrences?wait=decision', { input: { warmUp: true } })).status;
      await until(async () => (await warmUp()) === 200, 60_000);
      await redis.stop();
      const fired = await serve.call('POST', '/v1/triggers/t-1/occurrences?wait=decision', { input: { n: 1 } });
      expect(fired.status).toBe(200);
      expect(fired.body).toMatchObject({ status: 'admitted' });
      const { executionId, position } = fired.body as { executionId: string; position: number };
      const degraded = (await (await fetch(`${serve.baseUrl}/health/ready`)).json()) as any;
      expect(degraded.info.wakeups).toMatchObject({ status: 'degraded', transport: 'redis' });
      expect(await loadCheckpoint(serve.sql, WAKEUP_DISPATCHER)).toBeLessThan(position);

      await serve.kill();
      await redis.start(); // empty: nothing sent before the crash could survive in it
      await serve.restart();

      const client = redis.client();
      try {
        await until(async () => (await loadCheckpoint(serve.sql, WAKEUP_DISPATCHER)) >= position, 30_000);
        const entries = (await streamEntries(client, stream)).filter((e) => e.executionId === executionId);
        expect(entries).toEqual([
          {
            executionId,
            generation: '1',
            attempt: '1',
            tenant: 'acme',
            missionId: 'm-1',
            triggerId: 't-1',
            lane: expect.any(String),
          },
        ]);
      } finally {
        client.disconnect();
      }
      const first = await serve.call('POST', `/v1/executions/${executionId}/claim`, { consumerId: 'worker-1' });
      expect(first.status).toBe(200);
      const second = await serve.call('POST', `/v1/executions/${executionId}/claim`, { consumerId: 'worker-2' });
      expect(second.status).toBe(409);
      expect(second.body.code).toBe('already_claimed');
    }, 120_000);
  },
);
