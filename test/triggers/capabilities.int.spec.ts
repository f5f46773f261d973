import type { NewEvent } from '../../src/domain/ports/event-store.js';
import { triggerStream } from '../../src/domain/shared/ids.js';
import { isRejection } from '../../src/domain/shared/result.js';
import { CAPABILITIES } from '../../src/domain/trigger/trigger-authority.js';
import { initialTriggerState, triggerDecider } from '../../src/domain/trigger/trigger.js';
import { newKey, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';

const TENANT = 'tenant-a';
const grants = missionGrants({ maxExecutionsPerHour: 100, maxConcurrent: 10 });

/** The blocks the withholding deployment below does not claim, on a manual Trigger. */
const WITHHELD = 'wf.batching, wf.dedupe-windows';
const UNIMPLEMENTED = {
  batch: { size: 10, maxWaitMs: 60000 },
  dedupe: { windowSeconds: 3600 },
};

describe('CP-1 capabilities fail closed over HTTP (postgres)', () => {
  let full: TestApp;
  /** A deployment whose operator withholds two implemented capabilities (REVEILLE_WITHHELD_CAPABILITIES). */
  let t: TestApp;
  let n = 0;

  beforeAll(async () => {
    full = await startTestApp('postgres', { autostart: false });
    t = await startTestApp('postgres', { autostart: false, env: { REVEILLE_WITHHELD_CAPABILITIES: WITHHELD } });
  });
  afterAll(async () => {
    await full?.close();
    await t?.close();
  });

  async function mission(app: TestApp = t): Promise<string> {
    n += 1;
    const missionId = `m-cap-${n}`;
    const put = await app.request({
      method: 'PUT',
      url: `/v1/missions/${missionId}`,
      key: newKey(),
      body: { state: 'active', grants },
    });
    expect(put.status).toBe(200);
    return missionId;
  }

  const putTrigger = (triggerId: string, body: Record<string, unknown>, app: TestApp = t) =>
    app.request({ method: 'PUT', url: `/v1/triggers/${triggerId}`, key: newKey(), body });

  it('CP-1 GET /v1/capabilities lists exactly the capabilities this deployment meets, less those withheld', async () => {
    const response = await full.request({ method: 'GET', url: '/v1/capabilities' });
    expect(response.status).toBe(200);
    const all = [
      'wf.manual-initiation',
      'wf.external-event-initiation',
      'wf.scheduled-initiation',
      'wf.polling-initiation',
      'wf.overlap',
      'wf.guards',
      'wf.prefilters',
      'wf.causality',
      'wf.subscriptions',
      'wf.coalescing',
      'wf.dedupe-windows',
      'wf.batching',
    ];
    expect(response.body).toEqual({ capabilities: all });
    const withheld = await t.request({ method: 'GET', url: '/v1/capabilities' });
    expect(withheld.body).toEqual({
      capabilities: all.filter((id) => id !== 'wf.batching' && id !== 'wf.dedupe-windows'),
    });
  });

  it('CP-1 BA-1 DD-4 a Trigger using withheld blocks is 422 capability_unsupported naming each entry', async () => {
    const missionId = await mission();
    const response = await putTrigger('t-cap-every', {
      expectedRevision: 0,
      missionId,
      type: 'manual',
      ...UNIMPLEMENTED,
    });
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('capability_unsupported');
    expect(response.body.errors).toEqual(
      [
        ['/dedupe/windowSeconds', 'wf.dedupe-windows'],
        ['/batch', 'wf.batching'],
      ].map(([pointer, capability]) => ({
        pointer,
        message: `needs capability ${capability}, which this deployment does not claim`,
      })),
    );
    // Nothing was recorded: the Trigger does not exist.
    expect((await t.request({ method: 'GET', url: '/v1/triggers/t-cap-every' })).status).toBe(404);
  });

  it.each(Object.entries(UNIMPLEMENTED))('CP-1 the %s block alone is refused', async (block, value) => {
    const missionId = await mission();
    const response = await putTrigger(`t-cap-${block}`, { missionId, type: 'manual', [block]: value });
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('capability_unsupported');
    expect(response.body.errors.length).toBeGreaterThan(0);
    for (const error of response.body.errors) expect(error.pointer).toMatch(new RegExp(`^/${block}(/|$)`));
  });

  it('CP-1 BA-2 AD-4 BA-3 AD-5 CA-3 DD-4 DD-5 BA-1 guards, prefilters, overlap skip, resource lanes, causality, coalescing, a dedupe window, batches and every default written out are accepted', async () => {
    const batching = await putTrigger(
      't-cap-batch',
      {
        missionId: await mission(full),
        type: 'manual',
        batch: { size: 1000, maxWaitMs: 86_400_000, partitionPointer: '/repo' },
      },
      full,
    );
    expect(batching.status).toBe(200);
    const missionId = await mission(full);
    const response = await putTrigger(
      't-cap-ok',
      {
        missionId,
        type: 'manual',
        overlap: 'skip',
        queueByPointer: '/resource/id',
        dedupe: { windowSeconds: 3600 },
        coalesce: [
          {
            match: { pointer: '/kind', equals: 'sample' },
            mode: 'latest',
            windowMs: 5000,
            resourcePointer: '/resource/id',
            neverCoalesce: { pointer: '/action', in: ['revoke', 'stop'] },
          },
        ],
        prefilters: [
          { id: 'unchanged', version: 1, resourcePointer: '/resource/id', digestPointer: '/resource/etag' },
          { id: 'relevant', version: 1, pointer: '/kind', in: ['a'] },
          { id: 'window', version: 1, timezone: 'Europe/Berlin', days: ['mon'], from: '09:00', until: '17:00' },
        ],
        guard: { all: [{ pointer: '/action', in: ['opened', 'reopened'] }, { not: { pointer: '/n', gt: 3 } }] },
        batch: null,
        causality: { maxDepth: 2 },
      },
      full,
    );
    expect([response.status, response.body.errors]).toEqual([200, undefined]);
    expect((await full.request({ method: 'GET', url: '/v1/triggers/t-cap-ok' })).body).toMatchObject({
      overlap: 'skip',
      queueByPointer: '/resource/id',
      guard: { all: [{ pointer: '/action', in: ['opened', 'reopened'] }, { not: { pointer: '/n', gt: 3 } }] },
      coalesce: [{ match: { pointer: '/kind', equals: 'sample' }, windowMs: 5000, resourcePointer: '/resource/id' }],
    });
  });

  it('CP-1 BA-1 DD-5 a Trigger that both batches and coalesces is accepted where both capabilities are claimed', async () => {
    const missionId = await mission(full);
    const batch = { size: 10, maxWaitMs: 60000, partitionPointer: null };
    const coalesce = [{ match: { pointer: '/kind', equals: 'sample' }, mode: 'latest', windowMs: 5000 }];
    const response = await putTrigger('t-cap-batch-coalesce', { missionId, type: 'manual', batch, coalesce }, full);
    expect([response.status, response.body.code]).toEqual([200, undefined]);
    const read = await full.request({ method: 'GET', url: '/v1/triggers/t-cap-batch-coalesce' });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ batch, coalesce: [expect.objectContaining(coalesce[0])] });
  });

  it('CP-1 a revision stored while a capability was claimed keeps loading once it is withheld; it may be disabled, not enabled again', async () => {
    const missionId = await mission();
    const triggerId = 't-cap-stored';
    await t.infra.store.append(
      triggerStream(TENANT, triggerId),
      [storedWithDedupeWindow(triggerId, missionId)],
      'no_stream',
    );
    await t.catchUp();

    const read = await t.request({ method: 'GET', url: `/v1/triggers/${triggerId}` });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ revision: 1, dedupe: { windowSeconds: 3600 } });
    const revisions = await t.request({ method: 'GET', url: `/v1/triggers/${triggerId}/revisions` });
    expect(revisions.status).toBe(200);
    expect(revisions.body.items).toHaveLength(1);

    const disabled = await t.request({
      method: 'POST',
      url: `/v1/triggers/${triggerId}/disable`,
      key: newKey(),
      body: { reason: 'dedupe windows not implemented' },
    });
    expect(disabled.status).toBe(200);
    const enabled = await t.request({
      method: 'POST',
      url: `/v1/triggers/${triggerId}/enable`,
      key: newKey(),
      body: { reason: 'try again' },
    });
    expect(enabled.status).toBe(422);
    expect(enabled.body).toMatchObject({
      code: 'capability_unsupported',
      errors: [
        {
          pointer: '/dedupe/windowSeconds',
          message: 'needs capability wf.dedupe-windows, which this deployment does not claim',
        },
      ],
    });
    // A new revision must drop the block to be accepted.
    const revised = await putTrigger(triggerId, { missionId, type: 'manual', enabled: true });
    expect(revised.status).toBe(200);
    expect(revised.body.revision).toBe(3);
  });
});

/** A TriggerRevised with a dedupe window, as a deployment that claimed dedupe windows would have recorded it. */
function storedWithDedupeWindow(triggerId: string, missionId: string): NewEvent {
  const at = '2026-03-01T10:00:00.000Z';
  const decision = triggerDecider.decide(
    {
      type: 'ReviseTrigger',
      tenant: TENANT,
      triggerId,
      definition: { missionId, type: 'manual', dedupe: { windowSeconds: 3600 } },
      reason: 'recorded before CP-1 refused dedupe windows',
      actor: 'svc-test',
      at,
      mission: {
        status: 'defined',
        tenant: TENANT,
        missionId,
        revision: 1,
        state: 'active',
        grants: { ...grants, classification: 'internal' },
        updatedAt: at,
      },
      capabilities: Object.values(CAPABILITIES),
      pins: { tzdataVersion: 'test' },
    },
    initialTriggerState,
  );
  if (isRejection(decision) || decision[0]?.type !== 'TriggerRevised') throw new Error(JSON.stringify(decision));
  return { type: 'TriggerRevised', data: decision[0].data, metadata: { tenant: TENANT, actor: 'svc-test' } };
}
