import type { ObservedOccurrence } from '../../src/domain/occurrence/occurrence-events.js';
import { type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import {
  admittedEvent,
  appendOccurrence,
  appendTrigger,
  blockedEvent,
  occurrence,
  scheduleDefinition,
  triggerRevised,
} from './fixtures.js';

const at = (minute: number) => `2026-03-01T11:${String(minute).padStart(2, '0')}:00.000Z`;
const TRIGGERS = ['t-a', 't-b', 't-c', 't-d', 't-e'];
const occurrencesOfA = [1, 2, 3, 4, 5].map((n) =>
  occurrence({ tenant: 'tenant-a', triggerId: 't-a', key: `d-${n}`, observedAt: at(n) }),
);
const ofB = occurrence({ tenant: 'tenant-b', triggerId: 't-only-b', key: 'd-1', observedAt: at(1) });

const expectProblem = (
  response: { status: number; headers: Record<string, unknown>; body: any },
  status: number,
  code: string,
) => {
  expect(response.status).toBe(status);
  expect(String(response.headers['content-type'])).toContain('application/problem+json');
  expect(response.body).toMatchObject({ status, code });
};

/** Writes what the command side would: definitions on Trigger streams, facts on Occurrence streams. */
async function seed(t: TestApp): Promise<number> {
  for (const id of TRIGGERS)
    await appendTrigger(t.infra.store, 'tenant-a', id, [
      triggerRevised('tenant-a', id, 1, id === 't-e' ? scheduleDefinition() : undefined),
    ]);
  await appendTrigger(t.infra.store, 'tenant-b', 't-only-b', [triggerRevised('tenant-b', 't-only-b', 1)]);
  const decide = (o: ObservedOccurrence, n: number) =>
    n % 2 === 0
      ? [blockedEvent(o, 'budget_exhausted', { windowStart: '2026-03-01T11:00:00.000Z', consumed: 10, limit: 10 })]
      : [admittedEvent(o, `e-${n}`, o.observedAt)];
  for (const [i, o] of occurrencesOfA.entries()) await appendOccurrence(t.infra.store, o, ...decide(o, i + 1));
  const last = await appendOccurrence(t.infra.store, ofB);
  await t.catchUp();
  return last;
}

describe('OP-1/OP-2 operator read API (postgres)', () => {
  let t: TestApp;
  let lastPosition: number;
  const get = (url: string, tenant = 'tenant-a') =>
    t.token({ tenant, scope: 'operator:read' }).then((token) => t.request({ method: 'GET', url, token }));

  beforeAll(async () => {
    t = await startTestApp('postgres', { autostart: false });
    lastPosition = await seed(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('GET /v1/operator/triggers answers health rows of the caller tenant only', async () => {
    const response = await get('/v1/operator/triggers');
    expect(response.status).toBe(200);
    expect(response.body.nextCursor).toBeNull();
    expect(response.body.items.map((row: { triggerId: string }) => row.triggerId)).toEqual(TRIGGERS);
    expect(response.body.items[0]).toEqual({
      triggerId: 't-a',
      revision: 1,
      type: 'webhook',
      missionId: 'm-1',
      enabled: true,
      deleted: false,
      health: 'ok',
      nextFireAt: null,
      lastFireAt: at(5),
      lastOccurrence: {
        occurrenceId: occurrencesOfA[4]!.occurrenceId,
        status: 'admitted',
        reason: null,
        observedAt: at(5),
      },
      // Events folded straight into the read models: no delivery reached the ingress, so no auth outcome.
      auth: null,
      counts: {
        observed: 5,
        admitted: 3,
        blocked: { budget_exhausted: 2 },
        suppressed: {},
        batched: 0,
        coalesced: {},
        subscribed: 0,
        duplicate: 0,
      },
      executions: { pending: 3, claimed: 0, retrying: 0, dead: 0 },
      tzdataDrift: false,
      recovery: [],
    });
    expect(response.body).not.toHaveProperty('stale');
  });

  it('GET /v1/operator/triggers/{id} adds recentOccurrences and, for a schedule, its schedule block', async () => {
    const detail = await get('/v1/operator/triggers/t-a');
    expect(detail.status).toBe(200);
    expect(detail.body.recentOccurrences.map((o: { externalId: string }) => o.externalId)).toEqual([
      'd-5',
      'd-4',
      'd-3',
      'd-2',
      'd-1',
    ]);
    const schedule = await get('/v1/operator/triggers/t-e');
    expect(schedule.body.schedule).toEqual({
      engine: 'cron@1',
      tzdataVersion: '2025b',
      boundary: '2026-03-01T09:00:00.000Z',
      skipped: [],
      held: [],
    });
    expect(schedule.body.nextFireAt).toBe('2026-03-02T01:30:00.000Z');
  });

  it('GET /v1/operator/occurrences/{id} answers the explorer detail shape (OP-2)', async () => {
    const o = occurrencesOfA[1]!;
    const response = await get(`/v1/operator/occurrences/${o.occurrenceId}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      occurrenceId: o.occurrenceId,
      triggerId: 't-a',
      triggerRevision: 1,
      missionId: 'm-1',
      kind: 'webhook',
      status: 'blocked',
      reason: 'budget_exhausted',
      auth: { state: 'verified', sourceId: 'gh', keyId: 'k1' },
      externalId: 'd-2',
      observedAt: at(2),
      scheduledAt: null,
      firedAt: null,
      decidedAt: at(2),
      dedupeIdentity: o.dedupeIdentity,
      executionId: null,
      causal: { parentId: null, depth: 0, ancestry: [] },
      evidence: { windowStart: '2026-03-01T11:00:00.000Z', consumed: 10, limit: 10 },
      conflicts: 0,
    });
  });

  it('filters occurrences by trigger, status and reason', async () => {
    const blocked = await get('/v1/operator/occurrences?triggerId=t-a&status=blocked&reason=budget_exhausted');
    expect(blocked.body.items.map((o: { externalId: string }) => o.externalId)).toEqual(['d-4', 'd-2']);
    expect((await get('/v1/operator/occurrences?status=admitted')).body.items).toHaveLength(3);
    expect((await get('/v1/operator/occurrences?triggerId=t-b')).body).toEqual({ items: [], nextCursor: null });
  });

  it('pages with limit and an opaque nextCursor', async () => {
    const seen: string[] = [];
    let url = '/v1/operator/occurrences?limit=2';
    for (let page = 0; page < 3; page++) {
      const response = await get(url);
      expect(response.status).toBe(200);
      expect(response.body.items.length).toBe(page < 2 ? 2 : 1);
      seen.push(...response.body.items.map((o: { externalId: string }) => o.externalId));
      if (page < 2) expect(response.body.nextCursor).toEqual(expect.any(String));
      else expect(response.body.nextCursor).toBeNull();
      url = `/v1/operator/occurrences?limit=2&cursor=${response.body.nextCursor}`;
    }
    expect(seen).toEqual(['d-5', 'd-4', 'd-3', 'd-2', 'd-1']);
    const triggers = await get('/v1/operator/triggers?limit=2');
    expect(triggers.body.items).toHaveLength(2);
    const next = await get(`/v1/operator/triggers?limit=2&cursor=${triggers.body.nextCursor}`);
    expect(next.body.items.map((row: { triggerId: string }) => row.triggerId)).toEqual(['t-c', 't-d']);
  });

  it("hides another tenant's rows behind the same 404 as a missing one", async () => {
    const foreign = await get(`/v1/operator/occurrences/${ofB.occurrenceId}`);
    const missing = await get(`/v1/operator/occurrences/${'0'.repeat(64)}`);
    expectProblem(foreign, 404, 'not_found');
    expect(foreign.body).toEqual(missing.body);
    const foreignTrigger = await get('/v1/operator/triggers/t-only-b');
    expectProblem(foreignTrigger, 404, 'not_found');
    expect(foreignTrigger.body).toEqual((await get('/v1/operator/triggers/never')).body);
    expect((await get(`/v1/operator/occurrences/${ofB.occurrenceId}`, 'tenant-b')).status).toBe(200);
    expect((await get('/v1/operator/occurrences', 'tenant-b')).body.items).toHaveLength(1);
  });

  it('answers 400 with ?-pointers for a bad limit, status, reason, cursor or minPosition', async () => {
    for (const [query, pointer] of [
      ['limit=0', '?limit'],
      ['limit=501', '?limit'],
      ['limit=abc', '?limit'],
      ['limit=1&limit=2', '?limit'],
      ['status=pending', '?status'],
      ['reason=nope', '?reason'],
      ['cursor=not-a-cursor', '?cursor'],
      ['minPosition=-1', '?minPosition'],
    ]) {
      const response = await get(`/v1/operator/occurrences?${query}`);
      expectProblem(response, 400, 'BAD_REQUEST');
      expect(response.body.errors).toEqual([{ pointer, message: expect.any(String) }]);
    }
    const triggerCursor = (await get('/v1/operator/triggers?limit=1')).body.nextCursor;
    expectProblem(await get(`/v1/operator/occurrences?cursor=${triggerCursor}`), 400, 'BAD_REQUEST');
    expectProblem(await get('/v1/operator/triggers?limit=500000'), 400, 'BAD_REQUEST');
  });

  it('needs operator:read', async () => {
    const token = await t.token({ scope: 'missions:write' });
    expectProblem(await t.request({ method: 'GET', url: '/v1/operator/triggers', token }), 403, 'INSUFFICIENT_SCOPE');
  });

  it('honours minPosition: caught up answers plainly, a position the read models have not folded answers stale: true', async () => {
    const caughtUp = await get(`/v1/operator/triggers?minPosition=${lastPosition}`);
    expect(caughtUp.body).not.toHaveProperty('stale');
    const beyond = await get(`/v1/operator/occurrences?minPosition=${lastPosition + 1_000_000}`);
    expect(beyond.status).toBe(200);
    expect(beyond.body).toMatchObject({ stale: true, items: expect.any(Array) });
    // a write the projections (not running in this test) have not folded yet
    const late = occurrence({ tenant: 'tenant-c', triggerId: 't-late', key: 'd-1', observedAt: at(9) });
    const position = await appendOccurrence(t.infra.store, late);
    const started = Date.now();
    const stale = await get(`/v1/operator/occurrences?minPosition=${position}`, 'tenant-c');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(stale.body).toEqual({ items: [], nextCursor: null, stale: true });
    await t.catchUp();
    const fresh = await get(`/v1/operator/occurrences/${late.occurrenceId}?minPosition=${position}`, 'tenant-c');
    expect(fresh.body).toMatchObject({ occurrenceId: late.occurrenceId, status: 'observed' });
    expect(fresh.body).not.toHaveProperty('stale');
  });
});

describe.each<StoreKind>(['pglite'])('operator read API smoke (%s)', (kind) => {
  it('serves trigger health and occurrences from the embedded database', async () => {
    const t = await startTestApp(kind, { autostart: false });
    try {
      await seed(t);
      const token = await t.token({ scope: 'operator:read' });
      const triggers = await t.request({ method: 'GET', url: '/v1/operator/triggers?limit=1', token });
      expect(triggers.body).toMatchObject({
        items: [{ triggerId: 't-a', counts: { observed: 5 } }],
        nextCursor: expect.any(String),
      });
      const occurrences = await t.request({ method: 'GET', url: '/v1/operator/occurrences?status=blocked', token });
      expect(occurrences.body.items.map((o: { externalId: string }) => o.externalId)).toEqual(['d-4', 'd-2']);
    } finally {
      await t.close();
    }
  });
});
