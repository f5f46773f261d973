import { randomUUID } from 'node:crypto';
import { newKey, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';
import { post, standardHeaders } from '../ingress/ingress-client.js';

const TENANT = 'tenant-metrics-7f3a';

/** One sample's value from the Prometheus text, or undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-z_:]+)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? '').split(',').filter(Boolean);
    if (wanted.every((label) => present.includes(label)) && present.length === wanted.length) return Number(match[3]);
  }
  return undefined;
}

describe('OP-4 GET /metrics: Prometheus text after real traffic, no tenant or resource id in it (postgres)', () => {
  let t: TestApp;
  let token: string;
  const call = async (method: string, url: string, body: unknown, status = 200) => {
    const answer = await t.request({ method, url, body, token, key: newKey() });
    expect({ url, status: answer.status }).toEqual({ url, status });
    return answer.body;
  };
  const scrape = async () => {
    const response = await fetch(`${t.baseUrl}/metrics`);
    return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
  };

  beforeAll(async () => {
    t = await startTestApp('postgres');
    token = await t.token({ tenant: TENANT });
    await call('PUT', '/v1/missions/m-metrics', {
      state: 'active',
      grants: missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: 5 }),
    });
    await call('PUT', '/v1/sources/s-metrics', { scheme: 'standard-webhooks' });
    const { secret } = await call('POST', '/v1/sources/s-metrics/keys', {}, 201);
    await call('PUT', '/v1/triggers/t-metrics-hook', {
      missionId: 'm-metrics',
      type: 'webhook',
      source: { sourceId: 's-metrics' },
    });
    await call('PUT', '/v1/triggers/t-metrics-manual', { missionId: 'm-metrics', type: 'manual' });
    const start = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();
    await call('PUT', '/v1/triggers/t-metrics-every', {
      missionId: 'm-metrics',
      type: 'schedule',
      schedule: { engine: 'interval@1', expression: 'PT1S', timezone: 'UTC', start, missed: { policy: 'skip' } },
    });
    for (let i = 0; i < 3; i++) {
      const body = JSON.stringify({ type: 'push', id: randomUUID() });
      expect((await post(t, 's-metrics', body, standardHeaders(secret, body))).status).toBe(202);
    }
    const forged = JSON.stringify({ type: 'push', id: 'forged' });
    expect((await post(t, 's-metrics', forged, standardHeaders(`whsec_${'A'.repeat(32)}`, forged))).status).toBe(401);
    const fired = await call('POST', '/v1/triggers/t-metrics-manual/occurrences?wait=decision', { input: {} });
    expect(fired.status).toBe('admitted');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('OP-4 counts ingress answers, Occurrences, executions, HTTP durations, lag and schedule fire delays', async () => {
    let scraped = await scrape();
    // The schedule fires once a second; its first instant, and the read models' folds, arrive shortly.
    const deadline = Date.now() + 15_000;
    while (
      (sample(scraped.text, 'reveille_schedule_fire_delay_seconds_count') ?? 0) < 1 ||
      (sample(scraped.text, 'reveille_occurrences_total', { kind: 'webhook', status: 'observed' }) ?? 0) < 3 ||
      (sample(scraped.text, 'reveille_occurrences_total', { kind: 'schedule', status: 'observed' }) ?? 0) < 1 ||
      (sample(scraped.text, 'reveille_occurrences_total', { kind: 'manual', status: 'admitted' }) ?? 0) < 1
    ) {
      if (Date.now() > deadline) throw new Error(`metrics never showed the traffic:\n${scraped.text}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      scraped = await scrape();
    }
    const { status, type, text } = scraped;
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(text, 'reveille_ingress_requests_total', { status: '202' })).toBe(3);
    expect(sample(text, 'reveille_ingress_requests_total', { status: '401' })).toBe(1);
    expect(sample(text, 'reveille_occurrences_total', { kind: 'webhook', status: 'observed' })).toBe(3);
    expect(sample(text, 'reveille_occurrences_total', { kind: 'manual', status: 'observed' })).toBe(1);
    expect(sample(text, 'reveille_occurrences_total', { kind: 'manual', status: 'admitted' })).toBe(1);
    expect(sample(text, 'reveille_occurrences_total', { kind: 'schedule', status: 'observed' })).toBeGreaterThanOrEqual(
      1,
    );
    expect(sample(text, 'reveille_executions', { status: 'pending' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'reveille_executions', { status: 'dead' })).toBe(0);
    expect(sample(text, 'reveille_projection_lag_events', { projection: 'occurrences' })).toEqual(expect.any(Number));
    expect(sample(text, 'reveille_wakeup_lag_seconds')).toBe(0);
    expect(
      sample(text, 'reveille_http_request_duration_seconds_count', {
        method: 'PUT',
        route: '/v1/triggers/:triggerId',
        status: '200',
      }),
    ).toBe(3);
    expect(
      sample(text, 'reveille_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/v1/ingress/:sourceId',
        status: '202',
      }),
    ).toBe(3);
    expect(sample(text, 'reveille_schedule_fire_delay_seconds_count')).toBeGreaterThanOrEqual(1);
    // No label names a tenant or a resource: neither the tenant nor any id used above appears anywhere.
    for (const id of [TENANT, 'm-metrics', 's-metrics', 't-metrics', 'forged']) expect(text).not.toContain(id);
  });

  it("OP-4 BA-1 pending executions count a closed batch's execution, as the Trigger health rows do", async () => {
    // The schedule's fires would move the count between the two reads
    await call('POST', '/v1/triggers/t-metrics-every/disable', { reason: 'a still count' });
    await call('PUT', '/v1/triggers/t-metrics-batch', {
      missionId: 'm-metrics',
      type: 'manual',
      batch: { size: 2, maxWaitMs: 60_000 },
    });
    // A member is decided when its batch closes: here, with the second
    for (let i = 0; i < 2; i++) await call('POST', '/v1/triggers/t-metrics-batch/occurrences', { input: { i } }, 202);
    const healthPending = async () => {
      const { items } = await call('GET', '/v1/operator/triggers', undefined);
      return (items as Array<{ triggerId: string; executions: { pending: number } }>).reduce(
        (sum, row) => sum + row.executions.pending,
        0,
      );
    };
    const deadline = Date.now() + 15_000;
    for (;;) {
      const row = await call('GET', '/v1/operator/triggers/t-metrics-batch', undefined);
      if (row.executions.pending === 1) break;
      if (Date.now() > deadline) throw new Error(`the batch's execution never showed: ${JSON.stringify(row)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Read between two equal looks at the health rows, so no fold moved the count meanwhile
    let [before, scraped, after] = [-1, 0 as number | undefined, -2];
    while (before !== after) {
      if (Date.now() > deadline) throw new Error('the pending count never held still');
      before = await healthPending();
      scraped = sample((await scrape()).text, 'reveille_executions', { status: 'pending' });
      after = await healthPending();
    }
    expect(before).toBeGreaterThanOrEqual(2);
    expect(scraped).toBe(before);
  });
  it('OP-4 a Trigger whose type changes leaves what it counted under its old kind: no total goes down', async () => {
    await call('PUT', '/v1/triggers/t-metrics-kind', { missionId: 'm-metrics', type: 'manual' });
    const admittedSoFar =
      sample((await scrape()).text, 'reveille_occurrences_total', { kind: 'manual', status: 'admitted' }) ?? 0;
    const fired = await call('POST', '/v1/triggers/t-metrics-kind/occurrences?wait=decision', { input: {} });
    expect(fired.status).toBe('admitted');
    const manualAdmitted = async (minimum: number) => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const text = (await scrape()).text;
        const admitted = sample(text, 'reveille_occurrences_total', { kind: 'manual', status: 'admitted' }) ?? 0;
        if (admitted >= minimum) return text;
        if (Date.now() > deadline) throw new Error(`manual admissions never reached ${minimum}:\n${text}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const before = await manualAdmitted(admittedSoFar + 1);
    const revised = await call('PUT', '/v1/triggers/t-metrics-kind', {
      missionId: 'm-metrics',
      type: 'webhook',
      source: { sourceId: 's-metrics' },
    });
    // The health rows have folded the revision once the row reads as a webhook Trigger
    const row = await call('GET', `/v1/operator/triggers/t-metrics-kind?minPosition=${revised.position}`, undefined);
    expect(row.type).toBe('webhook');
    expect(row.stale).toBeUndefined();
    const after = (await scrape()).text;
    for (const [kind, status] of [
      ['manual', 'observed'],
      ['manual', 'admitted'],
      ['webhook', 'observed'],
      ['webhook', 'admitted'],
    ] as const)
      expect({ kind, status, n: sample(after, 'reveille_occurrences_total', { kind, status }) }).toEqual({
        kind,
        status,
        n: sample(before, 'reveille_occurrences_total', { kind, status }),
      });
  });
});
