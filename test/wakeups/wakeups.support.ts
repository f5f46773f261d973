import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { occurrenceStream } from '../../src/domain/shared/ids.js';
import { newKey, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';
import { wholeLog } from '../support/whole-log.js';

const grants = missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: 100 });

let n = 0;

/** A Mission with a manual Trigger, through the API. */
export async function manualTrigger(t: TestApp): Promise<{ missionId: string; triggerId: string }> {
  n += 1;
  const suffix = `${n}-${Math.random().toString(36).slice(2, 8)}`;
  const missionId = `m-w${suffix}`;
  const triggerId = `t-w${suffix}`;
  const mission = await t.request({
    method: 'PUT',
    url: `/v1/missions/${missionId}`,
    key: newKey(),
    body: { state: 'active', grants },
  });
  expect(mission.status).toBe(200);
  const trigger = await t.request({
    method: 'PUT',
    url: `/v1/triggers/${triggerId}`,
    key: newKey(),
    body: { expectedRevision: 0, missionId, type: 'manual' },
  });
  expect(trigger.status).toBe(200);
  return { missionId, triggerId };
}

export async function fire(t: TestApp, triggerId: string): Promise<string> {
  const fired = await t.request({
    method: 'POST',
    url: `/v1/triggers/${triggerId}/occurrences`,
    key: newKey(),
    body: { input: { run: ++n } },
  });
  expect(fired.status).toBe(202);
  return fired.body.occurrenceId as string;
}

/**
 * Admits what was fired (subscriptions driven by hand) and returns the execution ids, in firing order, once the
 * decisions are readable in log order: another suite's transaction still open in the cluster would otherwise hold
 * them back from the next subscription driven by hand, which then reads a page without them.
 */
export async function admitted(t: TestApp, occurrenceIds: string[]): Promise<string[]> {
  await t.app.get(AdmissionProcessor).subscription.catchUp();
  await wholeLog(t.infra.store);
  return Promise.all(
    occurrenceIds.map(async (occurrenceId) => {
      const events = await t.infra.store.readStream(occurrenceStream(occurrenceId));
      const decision = events.find((e) => e.type === 'OccurrenceAdmitted');
      if (!decision) throw new Error(`${occurrenceId} was not admitted: ${events.map((e) => e.type).join(', ')}`);
      return (decision.data as { executionId: string }).executionId;
    }),
  );
}

export async function fireAndAdmit(t: TestApp, triggerId: string, count: number): Promise<string[]> {
  const occurrences: string[] = [];
  for (let i = 0; i < count; i++) occurrences.push(await fire(t, triggerId));
  return admitted(t, occurrences);
}

export const claim = (t: TestApp, executionId: string, consumerId: string) =>
  t.request({ method: 'POST', url: `/v1/executions/${executionId}/claim`, key: newKey(), body: { consumerId } });

export { until } from '../support/until.js';
