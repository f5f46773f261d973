import { type ServeProcess, startServe } from '../support/serve-process.js';

const GRANTS = {
  maxExecutionsPerHour: 100,
  maxConcurrent: 10,
  resourceScopes: [],
  classification: 'internal',
  acceptLowerTrust: false,
  maxCausalDepth: 4,
};

/** `reveille serve` as an operator starts it on PostgreSQL: admission and read models in a worker thread. */
describe('REVEILLE_BACKGROUND=thread: one process, background work on its own event loop', () => {
  let serve: ServeProcess;
  const call = (method: string, path: string, body?: unknown) => serve.call(method, path, body);

  beforeAll(async () => {
    serve = await startServe({
      background: 'thread',
      scope: 'missions:write triggers:write occurrences:write operator:read',
    });
  }, 180_000);
  afterAll(async () => {
    await serve?.close();
  });

  async function readiness(): Promise<{
    status: string;
    details: { subscriptions: { running?: string[]; failing?: unknown } };
  }> {
    return (await (await fetch(`${serve.baseUrl}/health/ready`)).json()) as never;
  }

  it('OP-4 readiness lists the background tasks under the thread that runs them, none on the HTTP loop', async () => {
    const running = (await readiness())!.details.subscriptions.running!;
    expect(running).toEqual(
      expect.arrayContaining([
        'background-thread/processor:admission',
        'background-thread/projection:occurrences',
        'background-thread/scheduler:materializer',
      ]),
    );
    // the poll loop has a thread of its own, so a busy poller's Occurrences never wait behind their own folds
    expect(running.filter((name) => !name.startsWith('background-thread/'))).toEqual(['poller-thread/poller:poll']);
  });

  it('AD-1 OP-2 an Occurrence appended by the HTTP thread is decided and folded by the background thread', async () => {
    expect((await call('PUT', '/v1/missions/m-1', { state: 'active', grants: GRANTS })).status).toBe(200);
    expect((await call('PUT', '/v1/triggers/t-1', { missionId: 'm-1', type: 'manual' })).status).toBe(200);
    const fired = await call('POST', '/v1/triggers/t-1/occurrences?wait=decision', { input: { n: 1 } });
    expect(fired.status).toBe(200);
    expect(fired.body).toMatchObject({ status: 'admitted', reason: null });
    const shown = await call(
      'GET',
      `/v1/operator/occurrences/${fired.body.occurrenceId}?minPosition=${fired.body.position}`,
    );
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      occurrenceId: fired.body.occurrenceId,
      status: 'admitted',
      executionId: fired.body.executionId,
    });
    const health = await call('GET', `/v1/operator/triggers/t-1?minPosition=${fired.body.position}`);
    expect(health.body).toMatchObject({ counts: { observed: 1, admitted: 1 } });
  });

  it('OP-4 /metrics on the HTTP thread shows the schedule fire delays and folds the background thread made', async () => {
    const start = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();
    const schedule = { engine: 'interval@1', expression: 'PT1S', timezone: 'UTC', start, missed: { policy: 'skip' } };
    expect((await call('PUT', '/v1/triggers/t-every', { missionId: 'm-1', type: 'schedule', schedule })).status).toBe(
      200,
    );
    const fireDelays = /^reveille_schedule_fire_delay_seconds_count (\d+)$/m;
    const scheduled = /^reveille_occurrences_total\{kind="schedule",status="observed"\} (\d+)$/m;
    const deadline = Date.now() + 15_000;
    let text = '';
    for (;;) {
      text = await (await fetch(`${serve.baseUrl}/metrics`)).text();
      if (Number(fireDelays.exec(text)?.[1] ?? 0) >= 1 && Number(scheduled.exec(text)?.[1] ?? 0) >= 1) break;
      if (Date.now() > deadline) throw new Error(`no fire delay reached /metrics:\n${text}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  it('stops with the process on SIGTERM, the thread first, without a crash report', async () => {
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      serve.child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    serve.child.kill('SIGTERM');
    const { code, signal } = await exited;
    expect(code === 0 || signal === 'SIGTERM').toBe(true);
    expect(serve.stderr()).not.toMatch(/background thread: |exited with code/);
  }, 30_000);
});
