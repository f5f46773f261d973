import { randomUUID } from 'node:crypto';
import { newKey, startTestApp, type TestApp } from '../support/app.js';
import { post, standardHeaders } from './ingress-client.js';
import { sourceWithKey } from './definitions-take-effect.shared.js';

describe('WH-7 a delivery the Trigger bindings cannot map yet is refused as retryable, never dropped (postgres)', () => {
  let t: TestApp;

  beforeAll(async () => {
    // No read model runs until the test folds by hand: the bindings stay behind the Trigger write.
    t = await startTestApp('postgres', { autostart: false });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('WH-7 answers 503 store_unavailable with Retry-After after the bounded wait; the redelivery is then bound', async () => {
    const token = await t.token({ tenant: 'tenant-a' });
    const service = {
      baseUrl: t.baseUrl,
      call: (method: string, url: string, body?: unknown) => t.request({ method, url, body, token, key: newKey() }),
    };
    const { missionId, sourceId, secret } = await sourceWithKey(service, 'behind');
    await t.catchUp();
    const written = await service.call('PUT', '/v1/triggers/t-behind', {
      missionId,
      type: 'webhook',
      source: { sourceId },
    });
    expect(written.status).toBe(200);
    const body = JSON.stringify({ type: 'x', id: randomUUID() });
    const headers = standardHeaders(secret, body);
    const started = performance.now();
    const refused = await post(t, sourceId, body, headers);
    const waited = performance.now() - started;
    expect({ status: refused.status, code: refused.body.code, retryAfter: refused.headers['retry-after'] }).toEqual({
      status: 503,
      code: 'store_unavailable',
      retryAfter: '1',
    });
    expect(waited).toBeGreaterThanOrEqual(1_900);
    expect(waited).toBeLessThan(4_000);

    await t.catchUp();
    const retried = await post(t, sourceId, body, headers);
    expect({ status: retried.status, occurrences: retried.body.occurrences }).toEqual({
      status: 202,
      occurrences: [{ triggerId: 't-behind', occurrenceId: expect.any(String), status: 'observed' }],
    });
  });
});
