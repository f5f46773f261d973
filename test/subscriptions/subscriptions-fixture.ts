import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { newKey, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';
import { post as ingress, standardHeaders, webhookSetup } from '../ingress/ingress-client.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function until<T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/**
 * SU-1 fixture: a webhook source (with a correlationPointer) and Trigger to wait on, and a manual Trigger whose
 * claimed executions wait. Works with background tasks running or driven by hand (`admit`, `t.catchUp`).
 */
export function waitForFixture(get: () => TestApp, name: string) {
  let n = 0;
  let setup: Awaited<ReturnType<typeof webhookSetup>> & { waiterTriggerId: string };
  const admit = () => get().app.get(AdmissionProcessor).subscription.catchUp();

  /** `background`: the app runs its own read models (a catch-up by hand would race them). */
  async function init(background: boolean, tenant = 'tenant-a') {
    const t = get();
    const settle = async () => {
      if (background) await until(async () => (await t.infra.store.headPosition()) > 0, 'the store');
      else await t.catchUp();
    };
    const s = await webhookSetup({ ...t, catchUp: settle }, name, {
      tenant,
      source: { correlationPointer: '/meta/corr' },
    });
    const waiterTriggerId = `t-${name}-waiter`;
    const missionId = `m-${name}-waiter`;
    const grants = missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: 100 });
    expect(
      (
        await t.request({
          method: 'PUT',
          url: `/v1/missions/${missionId}`,
          key: newKey(),
          token: s.token,
          body: { state: 'active', grants },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await t.request({
          method: 'PUT',
          url: `/v1/triggers/${waiterTriggerId}`,
          key: newKey(),
          token: s.token,
          body: { missionId, type: 'manual' },
        })
      ).status,
    ).toBe(200);
    setup = { ...s, waiterTriggerId };
    if (!background) await t.catchUp();
    return setup;
  }

  /** A claimed execution of the waiter Trigger: its id and fence. */
  async function claimed(background: boolean): Promise<{ executionId: string; fence: number }> {
    const t = get();
    const fired = await t.request({
      method: 'POST',
      url: `/v1/triggers/${setup.waiterTriggerId}/occurrences${background ? '?wait=decision' : ''}`,
      key: newKey(),
      token: setup.token,
      body: { input: { n: ++n } },
    });
    expect([200, 202]).toContain(fired.status);
    if (!background) await admit();
    const executionId = `x-${fired.body.occurrenceId}`;
    const claim = await t.request({
      method: 'POST',
      url: `/v1/executions/${executionId}/claim`,
      key: newKey(),
      token: setup.token,
      body: { consumerId: 'waiter' },
    });
    expect(claim.status).toBe(200);
    return { executionId, fence: claim.body.fence };
  }

  /** A fresh token of the setup's tenant: a restarted app trusts another issuer. */
  const own = () => get().token({ tenant: 'tenant-a' });
  const subscribe = async (executionId: string, body: Record<string, unknown>, token?: string) =>
    get().request({
      method: 'POST',
      url: `/v1/executions/${executionId}/subscriptions`,
      key: newKey(),
      token: token ?? (await own()),
      body,
    });

  const deadlineIn = async (seconds: number) =>
    new Date((await get().infra.store.now()).getTime() + seconds * 1000).toISOString();

  const list = async (executionId: string, minPosition?: number) =>
    get().request({
      method: 'GET',
      url: `/v1/executions/${executionId}/subscriptions${minPosition ? `?minPosition=${minPosition}` : ''}`,
      token: await own(),
    });

  /** A signed delivery carrying `corr` at the source's correlationPointer; answers its Occurrence id. */
  async function deliver(corr: string, extra: Record<string, unknown> = {}): Promise<string> {
    const body = JSON.stringify({ type: 'callback', id: `evt-${++n}`, meta: { corr }, ...extra });
    const headers = standardHeaders(setup.secret, body);
    const answer = await ingress(get(), setup.sourceId, body, headers);
    expect(answer.status).toBe(202);
    const occurrenceId = answer.body.occurrences[0].occurrenceId as string;
    sent.set(occurrenceId, { body, headers });
    return occurrenceId;
  }
  const sent = new Map<string, { body: string; headers: Record<string, string> }>();

  /** The same delivery again, byte for byte and with its signature: a provider's retry, or a captured replay. */
  async function resend(occurrenceId: string) {
    const { body, headers } = sent.get(occurrenceId)!;
    return ingress(get(), setup.sourceId, body, headers);
  }

  const occurrence = async (occurrenceId: string) =>
    get().request({ method: 'GET', url: `/v1/operator/occurrences/${occurrenceId}`, token: await own() });

  /** Where the Occurrence's acceptance stands in the log. */
  const observedPosition = async (occurrenceId: string) =>
    Number(
      (
        await get().sql.query<{ position: string }>(
          `SELECT position FROM events WHERE type = 'OccurrenceObserved' AND data->>'occurrenceId' = $1`,
          [occurrenceId],
        )
      ).rows[0]!.position,
    );

  return {
    init,
    claimed,
    subscribe,
    deadlineIn,
    list,
    deliver,
    resend,
    occurrence,
    observedPosition,
    admit,
    get setup() {
      return setup;
    },
  };
}
