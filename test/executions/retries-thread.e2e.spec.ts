import { type ServeProcess, startServe } from '../support/serve-process.js';
import { missionGrants } from '../support/grants.js';
import { executionStream } from '../../src/domain/shared/ids.js';

/**
 * EX-4 as `reveille serve` runs it on PostgreSQL: the delivery timers in the background thread, `claim-next` on the
 * HTTP thread; a crash (SIGKILL) during a retry's backoff loses nothing, the next process fires the retry.
 */
describe('EX-4 delivery timers in REVEILLE_BACKGROUND=thread, across a crash', () => {
  let serve: ServeProcess;
  const call = (method: string, path: string, body?: unknown) => serve.call(method, path, body);

  beforeAll(async () => {
    serve = await startServe({
      background: 'thread',
      scope: 'missions:write triggers:write occurrences:write executions:write operator:read',
      env: { REVEILLE_DELIVERY_POLL_MS: '200' },
    });
  }, 180_000);
  afterAll(async () => {
    await serve?.close();
  });

  it('EX-4 OP-4 the timers run in the background thread; a retry scheduled before a crash is redelivered after the restart', async () => {
    const readiness = (await (await fetch(`${serve.baseUrl}/health/ready`)).json()) as {
      details: { subscriptions: { running: string[] } };
    };
    expect(readiness.details.subscriptions.running).toContain('background-thread/timers:delivery');

    const grants = missionGrants({ maxExecutionsPerHour: 100, maxConcurrent: 10 });
    expect((await call('PUT', '/v1/missions/m-r', { state: 'active', grants })).status).toBe(200);
    // The default delivery policy: the first retry waits 1 s.
    expect((await call('PUT', '/v1/triggers/t-r', { missionId: 'm-r', type: 'manual' })).status).toBe(200);
    const fired = await call('POST', '/v1/triggers/t-r/occurrences?wait=decision', { input: { n: 1 } });
    expect(fired.body.status).toBe('admitted');
    const { executionId } = fired.body;
    const claimed = await call('POST', '/v1/executions/claim-next', { consumerId: 'w', waitSeconds: 5 });
    expect(claimed.body).toMatchObject({ executionId, generation: 1, attempt: 1 });
    const failed = await call('POST', `/v1/executions/${executionId}/complete`, {
      fence: claimed.body.fence,
      outcome: 'failed',
      retryable: true,
      error: { code: 'timeout', message: 'downstream timed out' },
    });
    expect(failed.body.status).toBe('retrying');

    await serve.kill();
    await serve.restart();
    const again = await call('POST', '/v1/executions/claim-next', { consumerId: 'w', waitSeconds: 15 });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ executionId, generation: 2, attempt: 2, fence: 2 });
    const types = (
      await serve.sql.query<{ type: string }>(`SELECT type FROM events WHERE stream_id = $1 ORDER BY position`, [
        executionStream(executionId),
      ])
    ).rows.map((r) => r.type);
    expect(types).toEqual([
      'ExecutionClaimed',
      'ExecutionCompleted',
      'ExecutionRetryScheduled',
      'ExecutionRedelivered',
      'ExecutionClaimed',
    ]);
  }, 120_000);
});
