import { newKey, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';
import { until } from '../executions/retries.shared.js';

/** Data, never markup: if the dashboard rendered it as HTML, the handler would set the flag. */
export const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';

export interface DashboardData {
  missionId: string;
  manualTrigger: string;
  scheduleTrigger: string;
  deadExecution: string;
  occurrenceId: string;
}

/**
 * What the dashboard shows in the test: a manual Trigger whose only execution is dead-lettered (maxAttempts 1 and
 * a retryable failure, EX-4) and an hourly schedule Trigger (its schedule section: engine, boundary, ranges).
 */
export async function dashboardData(t: TestApp): Promise<DashboardData> {
  const suffix = Date.now().toString(36);
  const missionId = `m-ui-${suffix}`;
  const manualTrigger = `t-ui-${suffix}`;
  const scheduleTrigger = `t-ui-cron-${suffix}`;
  const put = (url: string, body: unknown) => t.request({ method: 'PUT', url, key: newKey(), body });
  const post = (url: string, body: unknown) => t.request({ method: 'POST', url, key: newKey(), body });

  const grants = missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: 100 });
  expect((await put(`/v1/missions/${missionId}`, { state: 'active', grants })).status).toBe(200);
  const manual = { expectedRevision: 0, missionId, type: 'manual', delivery: { maxAttempts: 1 }, reason: HOSTILE };
  expect((await put(`/v1/triggers/${manualTrigger}`, manual)).status).toBe(200);
  const schedule = {
    engine: 'interval@1',
    expression: 'PT1H',
    timezone: 'UTC',
    start: '2026-01-01T00:00:00.000Z',
  };
  expect(
    (await put(`/v1/triggers/${scheduleTrigger}`, { expectedRevision: 0, missionId, type: 'schedule', schedule }))
      .status,
  ).toBe(200);

  const fired = await post(`/v1/triggers/${manualTrigger}/occurrences?wait=decision`, { input: { run: 1 } });
  expect([fired.status, fired.body.status]).toEqual([200, 'admitted']);
  const deadExecution: string = fired.body.executionId;
  const claimed = await post(`/v1/executions/${deadExecution}/claim`, { consumerId: 'ui-worker' });
  expect(claimed.status).toBe(200);
  const failed = await post(`/v1/executions/${deadExecution}/complete`, {
    fence: claimed.body.fence,
    outcome: 'failed',
    retryable: true,
    error: { code: 'downstream', message: HOSTILE },
  });
  expect([failed.status, failed.body.status]).toEqual([200, 'dead_lettered']);

  // The app folds and materializes in the background (as served): wait until the operator views show both.
  const get = async (url: string) => (await t.request({ method: 'GET', url })).body;
  const manualHealth = await until(async () => {
    const health = await get(`/v1/operator/triggers/${manualTrigger}`);
    return health.executions?.dead === 1 && health.recentOccurrences?.length === 1 ? health : undefined;
  }, 'the dead letter in the Trigger health row');
  await until(
    async () => (await get(`/v1/operator/triggers/${scheduleTrigger}`)).schedule?.boundary,
    'the schedule materialized up to a boundary',
    30_000,
  );
  return {
    missionId,
    manualTrigger,
    scheduleTrigger,
    deadExecution,
    occurrenceId: manualHealth.recentOccurrences[0].occurrenceId,
  };
}
