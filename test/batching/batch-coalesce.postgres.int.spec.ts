import { randomBytes } from 'node:crypto';
import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { auditVerify } from '../../src/adapters/cli/audit-verify.js';
import { BatchCloserService } from '../../src/adapters/batches/batch-closer.service.js';
import { CoalesceTimersService } from '../../src/adapters/coalescing/coalesce-timers.service.js';
import { occurrenceStream } from '../../src/domain/shared/ids.js';
import { newKey, startTestApp, type TestApp } from '../support/app.js';
import { dropSchema } from '../support/databases.js';
import { missionGrants } from '../support/grants.js';

/** api.md, Triggers: the binding PUT example, every block as written (it carries both `coalesce` and `batch`). */
const API_MD_TRIGGER = {
  expectedRevision: 0,
  missionId: 'm-1',
  type: 'webhook',
  enabled: true,
  source: { sourceId: 'gh', eventTypes: ['push'] },
  schedule: {
    engine: 'cron@1',
    expression: '30 2 * * *',
    timezone: 'Europe/Berlin',
    start: '2026-01-01T00:00:00.000Z',
    end: null,
    dst: { nonexistent: 'shift_forward', ambiguous: 'earlier' },
    missed: { policy: 'catch_up', bound: 5, overflow: 'hold' },
  },
  poll: {
    connector: 'http-json@1',
    url: 'http://127.0.0.1:9000/items',
    everySeconds: 60,
    itemsPointer: '/items',
    idPointer: '/id',
    cursorParam: 'cursor',
    nextCursorPointer: '/next_cursor',
    onInvalidItem: 'quarantine',
  },
  dedupe: {
    strategy: 'delivery-id@1',
    keyPointer: null,
    subjectPointer: null,
    windowSeconds: 604800,
    onRevision: 'retain',
  },
  coalesce: [{ match: { pointer: '/type', equals: 'health.sample' }, mode: 'latest', windowMs: 5000 }],
  batch: { size: 10, maxWaitMs: 60000, partitionPointer: '/repo' },
  overlap: 'allow',
  queueByPointer: '/resource/id',
  guard: { all: [{ pointer: '/action', in: ['opened', 'reopened'] }] },
  prefilters: [{ id: 'unchanged', version: 1, resourcePointer: '/resource/id', digestPointer: '/resource/etag' }],
  causality: { maxDepth: 3 },
  constraints: {
    maxExecutionsPerHour: 10,
    maxConcurrent: 1,
    resourceScopes: ['repo:acme/api'],
    classification: 'internal',
    acceptLowerTrust: false,
  },
  reason: '…',
};

/** api.md, Sources: the example Source the Trigger example names. */
const API_MD_SOURCE = {
  expectedRevision: 0,
  scheme: 'standard-webhooks',
  toleranceSeconds: 300,
  maxBodyBytes: 262144,
  rateLimit: { perSecond: 50, burst: 100 },
  eventTypePointer: '/type',
  deliveryIdFrom: 'header',
  correlationPointer: '/metadata/reveille_correlation',
  schema: { required: ['/type', '/id'] },
};

/** Health samples coalesce per host within 2.5 s (a revoke never does); the batch closes 5 s after its first join. */
const COALESCE = [
  {
    match: { pointer: '/type', equals: 'health.sample' },
    mode: 'latest',
    windowMs: 2500,
    resourcePointer: '/host',
    neverCoalesce: { pointer: '/action', equals: 'revoke' },
  },
];
const BATCH = { size: 10, maxWaitMs: 5000 };

async function until<T>(what: () => Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await what();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('BA-1 DD-5 a Trigger that coalesces and batches, end to end on PostgreSQL', () => {
  let t: TestApp;
  const admit = () => t.app.get(AdmissionProcessor).subscription.catchUp();
  const coalesceTimers = () => t.app.get(CoalesceTimersService).timers;
  const batchCloser = () => t.app.get(BatchCloserService).closer;
  const eventsOf = async (occurrenceId: string) =>
    (await t.infra.store.readStream(occurrenceStream(occurrenceId))).map((e) => e.type);
  const occurrence = async (id: string) =>
    (await t.request({ method: 'GET', url: `/v1/operator/occurrences/${id}` })).body;

  beforeAll(async () => {
    // Admission, read models and both timers are driven by hand, so each step sees exactly what it caused.
    t = await startTestApp('postgres', { autostart: false });
    const mission = await t.request({
      method: 'PUT',
      url: '/v1/missions/m-1',
      key: newKey(),
      body: { state: 'active', grants: missionGrants({ maxExecutionsPerHour: 100, maxConcurrent: 10 }) },
    });
    expect(mission.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it("BA-1 DD-5 api.md's Trigger PUT example (coalesce and batch together) is accepted: 200, stored as written", async () => {
    const source = await t.request({ method: 'PUT', url: '/v1/sources/gh', key: newKey(), body: API_MD_SOURCE });
    expect(source.status).toBe(200);
    const put = await t.request({ method: 'PUT', url: '/v1/triggers/t-1', key: newKey(), body: API_MD_TRIGGER });
    expect([put.status, put.body.code]).toEqual([200, undefined]);
    expect(put.body).toMatchObject({ triggerId: 't-1', revision: 1 });
    const read = await t.request({ method: 'GET', url: '/v1/triggers/t-1' });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ coalesce: API_MD_TRIGGER.coalesce, batch: API_MD_TRIGGER.batch });
  });

  it('BA-1 DD-5 EX-1 samples coalesce per host, the representatives and a revoke join one batch, its close admits one execution with them in acceptance order', async () => {
    const put = await t.request({
      method: 'PUT',
      url: '/v1/triggers/t-both',
      key: newKey(),
      body: { expectedRevision: 0, missionId: 'm-1', type: 'manual', coalesce: COALESCE, batch: BATCH },
    });
    expect([put.status, put.body.code]).toEqual([200, undefined]);
    const fire = async (input: unknown): Promise<string> => {
      const fired = await t.request({
        method: 'POST',
        url: '/v1/triggers/t-both/occurrences',
        key: newKey(),
        body: { input },
      });
      expect(fired.status).toBe(202);
      return fired.body.occurrenceId as string;
    };
    const h1 = [await fire({ type: 'health.sample', host: 'h1', v: 0 })];
    h1.push(await fire({ type: 'health.sample', host: 'h1', v: 1 }));
    const h2 = [await fire({ type: 'health.sample', host: 'h2', v: 2 })];
    const revoke = await fire({ type: 'health.sample', host: 'h1', action: 'revoke', v: 3 });
    h1.push(await fire({ type: 'health.sample', host: 'h1', v: 4 }));
    await admit();
    // The samples wait in their groups; the revoke is never absorbed: it joins the batch at once, undecided.
    for (const id of [...h1, ...h2])
      expect(await eventsOf(id)).toEqual(['OccurrenceObserved', 'OccurrenceHeldForCoalescing']);
    expect(await eventsOf(revoke)).toEqual(['OccurrenceObserved', 'OccurrenceBatchJoined']);

    // timers:coalesce closes both groups once their windows passed by the database clock.
    await until(async () => {
      await t.catchUp();
      await coalesceTimers().runOnce();
      const last = await Promise.all([h1[2]!, h2[0]!].map(eventsOf));
      return last.every((events) => events.includes('OccurrenceBatchJoined'));
    });
    await t.catchUp();
    for (const id of h1.slice(0, -1))
      expect(await occurrence(id)).toMatchObject({
        status: 'coalesced',
        reason: 'coalesced',
        executionId: null,
        evidence: { coalescedInto: h1[2] },
      });
    // The representatives joined the batch: not admitted alone, no execution yet.
    for (const id of [h1[2]!, h2[0]!, revoke]) expect((await occurrence(id)).status).toBe('observed');
    expect(await eventsOf(h1[2]!)).toEqual([
      'OccurrenceObserved',
      'OccurrenceHeldForCoalescing',
      'OccurrenceBatchJoined',
    ]);
    const none = await t.request({
      method: 'POST',
      url: '/v1/executions/claim-next',
      key: newKey(),
      body: { consumerId: 'c-1', triggerId: 't-both', waitSeconds: 0 },
    });
    expect(none.status).toBe(204);

    // The batch's own timer closes it at its deadline: one execution for the three members.
    await until(async () => {
      await t.catchUp();
      return (await batchCloser().runOnce()) > 0;
    });
    await t.catchUp();
    const members = [revoke, h1[2]!, h2[0]!];
    const rows = await Promise.all(members.map(occurrence));
    expect(rows.map((r) => r.status)).toEqual(['batched', 'batched', 'batched']);
    const executionId = rows[0].executionId as string;
    expect(executionId).toBe(`x-${revoke}`);
    for (const row of rows) expect(row.executionId).toBe(executionId);
    // OP-2 (api.md occurrence `members?`): each representative shows the group it stands for; the batch's first
    // member (the revoke, grouped by no rule) the batch's ids, as an array.
    expect(rows.map((r) => r.members)).toEqual([members, h1, h2]);
    expect([rows[1].evidence.coalesced, rows[2].evidence.coalesced]).toEqual([h1, h2]);
    expect(rows[0].evidence.members).toEqual(members);
    const executions = await t.request({ method: 'GET', url: '/v1/executions?status=pending' });
    expect(executions.status).toBe(200);
    expect(
      executions.body.items
        .filter((e: { triggerId: string }) => e.triggerId === 't-both')
        .map((e: { executionId: string }) => e.executionId),
    ).toEqual([executionId]);
    const claim = await t.request({
      method: 'POST',
      url: `/v1/executions/${executionId}/claim`,
      key: newKey(),
      body: { consumerId: 'c-1' },
    });
    expect(claim.status).toBe(200);
    expect(claim.body.members).toEqual(members);
    expect(claim.body.input).toEqual({
      members: [
        { type: 'health.sample', host: 'h1', action: 'revoke', v: 3 },
        { type: 'health.sample', host: 'h1', v: 4 },
        { type: 'health.sample', host: 'h2', v: 2 },
      ],
    });
    // Exactly one execution: nothing else to claim, nothing more to close.
    const next = await t.request({
      method: 'POST',
      url: '/v1/executions/claim-next',
      key: newKey(),
      body: { consumerId: 'c-1', triggerId: 't-both', waitSeconds: 0 },
    });
    expect(next.status).toBe(204);
    expect(await batchCloser().runOnce()).toBe(0);
    expect(await coalesceTimers().runOnce()).toBe(0);
    const health = await t.request({ method: 'GET', url: '/v1/operator/triggers/t-both' });
    expect(health.body.counts).toMatchObject({ observed: 5, admitted: 0, batched: 3, coalesced: { coalesced: 2 } });
    // AU-2: the log replays through every domain fold, one decision per Occurrence.
    await t.catchUp();
    const report = await auditVerify(t.infra);
    expect(report).toMatchObject({ ok: true, violations: 0, listed: [] });
    expect(report.readModels.filter((table) => table.status !== 'equal')).toEqual([]);
  }, 60_000);
});

describe('BA-1 DD-5 open groups and the batch their representatives join survive restarts (PostgreSQL)', () => {
  it('BA-1 DD-5 a group open at a restart closes into a batch in the next app; that batch, open at another restart, admits one execution in the third', async () => {
    const database = `t_${randomBytes(6).toString('hex')}`;
    const open = () => startTestApp('postgres', { autostart: false, database });
    let t = await open();
    try {
      const mission = await t.request({
        method: 'PUT',
        url: '/v1/missions/m-r',
        key: newKey(),
        body: { state: 'active', grants: missionGrants({ maxExecutionsPerHour: 100, maxConcurrent: 10 }) },
      });
      expect(mission.status).toBe(200);
      const put = await t.request({
        method: 'PUT',
        url: '/v1/triggers/t-r',
        key: newKey(),
        body: { expectedRevision: 0, missionId: 'm-r', type: 'manual', coalesce: COALESCE, batch: BATCH },
      });
      expect(put.status).toBe(200);
      const ids: string[] = [];
      for (let v = 0; v < 3; v++) {
        const fired = await t.request({
          method: 'POST',
          url: '/v1/triggers/t-r/occurrences',
          key: newKey(),
          body: { input: { type: 'health.sample', host: 'h1', v } },
        });
        expect(fired.status).toBe(202);
        ids.push(fired.body.occurrenceId as string);
      }
      await t.app.get(AdmissionProcessor).subscription.catchUp();
      const typesOf = async (id: string) => (await t.infra.store.readStream(occurrenceStream(id))).map((e) => e.type);
      for (const id of ids) expect(await typesOf(id)).toEqual(['OccurrenceObserved', 'OccurrenceHeldForCoalescing']);
      await t.close();

      // Second app: its coalesce timer finds the open group in the log and closes it into the batch.
      t = await open();
      await until(async () => {
        await t.catchUp();
        await t.app.get(CoalesceTimersService).timers.runOnce();
        return (await typesOf(ids[2]!)).includes('OccurrenceBatchJoined');
      });
      for (const id of ids.slice(0, 2)) expect((await typesOf(id)).at(-1)).toBe('OccurrenceCoalesced');
      await t.catchUp();
      const opened = await t.sql.query<{ n: string }>({
        text: `SELECT count(*) AS n FROM rm_open_batches WHERE trigger_id = $1`,
        values: ['t-r'],
      });
      expect(Number(opened.rows[0]!.n)).toBe(1);
      await t.close();

      // Third app: its batch closer finds the open batch and its deadline, and admits it once.
      t = await open();
      await until(async () => {
        await t.catchUp();
        return (await t.app.get(BatchCloserService).closer.runOnce()) > 0;
      });
      expect((await typesOf(ids[2]!)).at(-1)).toBe('OccurrenceBatched');
      const claim = await t.request({
        method: 'POST',
        url: `/v1/executions/x-${ids[2]}/claim`,
        key: newKey(),
        body: { consumerId: 'c-1' },
      });
      expect(claim.status).toBe(200);
      expect(claim.body.members).toEqual([ids[2]]);
      expect(claim.body.input).toEqual({ members: [{ type: 'health.sample', host: 'h1', v: 2 }] });
      expect(await t.app.get(BatchCloserService).closer.runOnce()).toBe(0);
    } finally {
      await t.close();
      await dropSchema(database);
    }
  }, 90_000);
});
