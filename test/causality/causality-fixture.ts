import { randomBytes } from 'node:crypto';
import { newKey, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';
import { post as postIngress, standardHeaders } from '../ingress/ingress-client.js';

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

export const CORRELATION_POINTER = '/meta/correlation';

/**
 * One test's world: a Mission, a signed source with a correlationPointer and webhook Triggers bound to it by
 * event type (`a`, `b`, `c` …), so an execution's Operation can be answered by a delivery reaching another Trigger.
 */
export function causalityFixture(get: () => TestApp) {
  let n = 0;
  const suffix = randomBytes(3).toString('hex');
  const t = () => get();
  const write = (method: string, url: string, body: unknown, key = newKey()) => t().request({ method, url, key, body });

  async function world(
    options: {
      triggers?: Record<string, Record<string, unknown>>;
      scheme?: 'standard-webhooks' | 'unsigned';
      maxCausalDepth?: number;
    } = {},
  ) {
    n += 1;
    const id = `${suffix}-${n}`;
    const missionId = `m-ca-${id}`;
    const sourceId = `s-ca-${id}`;
    const scheme = options.scheme ?? 'standard-webhooks';
    const grants = {
      ...missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: 50, acceptLowerTrust: true }),
      maxCausalDepth: options.maxCausalDepth ?? 4,
    };
    expect((await write('PUT', `/v1/missions/${missionId}`, { state: 'active', grants })).status).toBe(200);
    const source = await write('PUT', `/v1/sources/${sourceId}`, { scheme, correlationPointer: CORRELATION_POINTER });
    expect(source.status).toBe(200);
    let secret = '';
    if (scheme !== 'unsigned') {
      const key = await write('POST', `/v1/sources/${sourceId}/keys`, {});
      expect(key.status).toBe(201);
      secret = key.body.secret;
    }
    const triggers: Record<string, string> = {};
    for (const [name, extra] of Object.entries(options.triggers ?? { a: {}, b: {} })) {
      const triggerId = `t-ca-${id}-${name}`;
      const put = await write('PUT', `/v1/triggers/${triggerId}`, {
        missionId,
        type: 'webhook',
        source: { sourceId, eventTypes: [name] },
        constraints: { acceptLowerTrust: true },
        ...extra,
      });
      expect(put.status).toBe(200);
      triggers[name] = triggerId;
    }
    // No catch-up: the ingress waits for this process's Trigger writes to be mapped (WH-7).

    /** One delivery of event type `type`, signed unless the source is unsigned; answers the Occurrence ids. */
    async function deliver(type: string, payload: Record<string, unknown> = {}): Promise<string> {
      const body = JSON.stringify({ type, id: randomBytes(6).toString('hex'), ...payload });
      const headers = secret
        ? standardHeaders(secret, body)
        : { 'webhook-id': `msg_${randomBytes(6).toString('hex')}` };
      const answer = await postIngress(t(), sourceId, body, headers);
      expect([answer.status, answer.body.occurrences?.length]).toEqual([202, 1]);
      return answer.body.occurrences[0].occurrenceId as string;
    }

    return { missionId, sourceId, triggers, secret, deliver };
  }

  /** The operator's detail once admission decided it. */
  async function decided(occurrenceId: string): Promise<any> {
    return until(async () => {
      const read = await t().request({ method: 'GET', url: `/v1/operator/occurrences/${occurrenceId}` });
      return read.status === 200 && read.body.status !== 'observed' ? read.body : undefined;
    }, `the decision of ${occurrenceId}`);
  }

  async function claimed(occurrenceId: string): Promise<{ executionId: string; fence: number }> {
    const executionId = `x-${occurrenceId}`;
    const claim = await write('POST', `/v1/executions/${executionId}/claim`, { consumerId: 'worker' });
    expect(claim.status).toBe(200);
    return { executionId, fence: claim.body.fence as number };
  }

  const recordOperation = (
    executionId: string,
    body: { fence: number; operationId: string; correlation: { sourceId: string; key: string } },
    key?: string,
  ) => write('POST', `/v1/executions/${executionId}/operations`, body, key);

  /** Admitted, claimed, and an Operation recorded that expects `key` from the world's source. */
  async function actsWith(occurrenceId: string, sourceId: string, key: string, operationId = `op-${key}`) {
    expect((await decided(occurrenceId)).status).toBe('admitted');
    const { executionId, fence } = await claimed(occurrenceId);
    const recorded = await recordOperation(executionId, { fence, operationId, correlation: { sourceId, key } });
    expect([recorded.status, recorded.body.operationId]).toEqual([201, operationId]);
    return { executionId, fence, operationId };
  }

  const freshKey = (label: string) => `${label}-${suffix}-${randomBytes(4).toString('hex')}`;

  return { world, decided, claimed, recordOperation, actsWith, freshKey };
}
