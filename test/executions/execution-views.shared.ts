import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { ProjectionRunners } from '../../src/adapters/runner/projection-runners.js';
import { occurrenceViews } from '../../src/projections/index.js';
import { executionsProjection } from '../../src/projections/executions/executions.projection.js';
import type { Projection } from '../../src/projections/runner/projection.js';
import { dumpTables } from '../projections/harness.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';

const grants = missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: 100 });
const expectNewestFirst = (items: Array<{ position: number }>) => {
  const positions = items.map((row) => row.position);
  expect(positions).toEqual([...positions].sort((a, b) => b - a));
  expect(new Set(positions).size).toBe(positions.length);
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** OP-1, EX-4, EX-5 over HTTP: the executions list, the dead-letter queue, the execution detail and Trigger health counts. */
export function executionViewsSuite(kind: StoreKind): void {
  describe(`operator execution views (${kind})`, () => {
    let t: TestApp;
    let n = 0;

    beforeAll(async () => {
      t = await startTestApp(kind, { autostart: false });
    });
    afterAll(async () => {
      await t?.close();
    });

    const settle = async () => {
      await t.app.get(AdmissionProcessor).subscription.catchUp();
      await t.catchUp();
    };
    const get = async (url: string, tenant = 'tenant-a') =>
      t.request({ method: 'GET', url, token: await t.token({ tenant, scope: 'operator:read' }) });
    const post = (executionId: string, action: string, body: unknown) =>
      t.request({ method: 'POST', url: `/v1/executions/${executionId}/${action}`, key: newKey(), body });

    async function setup(definition: Record<string, unknown> = {}) {
      n += 1;
      const missionId = `m-v${n}`;
      const triggerId = `t-v${n}`;
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
        body: { expectedRevision: 0, missionId, type: 'manual', ...definition },
      });
      expect(trigger.status).toBe(200);
      return { missionId, triggerId };
    }

    /** Fires `count` Occurrences, admits them and answers their execution ids in firing order. */
    async function admitted(triggerId: string, count = 1): Promise<string[]> {
      const occurrences: string[] = [];
      for (let i = 0; i < count; i++) {
        const fired = await t.request({
          method: 'POST',
          url: `/v1/triggers/${triggerId}/occurrences`,
          key: newKey(),
          body: { input: { secret: `payload-${++n}` } },
        });
        expect(fired.status).toBe(202);
        occurrences.push(fired.body.occurrenceId);
      }
      await settle();
      return occurrences.map((id) => `x-${id}`);
    }

    const claim = async (executionId: string, consumerId = 'w-1') => {
      const claimed = await post(executionId, 'claim', { consumerId });
      expect(claimed.status).toBe(200);
      return claimed.body.fence as number;
    };
    const fail = async (executionId: string, fence: number, retryable: boolean) =>
      expect(
        (
          await post(executionId, 'complete', {
            fence,
            outcome: 'failed',
            retryable,
            error: { code: 'upstream_down', message: 'the API answered 503' },
          })
        ).status,
      ).toBe(200);
    const health = async (triggerId: string) => (await get(`/v1/operator/triggers/${triggerId}`)).body;

    it('OP-1 EX-4 GET /v1/executions lists every lifecycle state with filters, newest first', async () => {
      const { triggerId, missionId } = await setup({ delivery: { maxAttempts: 2 } });
      const [pending, claimed, retrying, failed, completed, settled] = await admitted(triggerId, 6);
      await claim(claimed!);
      await fail(retrying!, await claim(retrying!), true);
      await fail(failed!, await claim(failed!), false);
      const fence = await claim(completed!);
      expect((await post(completed!, 'complete', { fence, outcome: 'succeeded', receipt: { ok: 1 } })).status).toBe(
        200,
      );
      expect((await post(settled!, 'settle', { settlementId: 's-1' })).body.decision).toBe('noncommitted');
      await t.catchUp();

      const all = await get(`/v1/executions?triggerId=${triggerId}`);
      expect(all.status).toBe(200);
      expect(all.body.nextCursor).toBeNull();
      // Newest admission first (acceptance order, which need not be firing order).
      expect(all.body.items.map((row: { executionId: string }) => row.executionId).sort()).toEqual(
        [pending, claimed, retrying, failed, completed, settled].sort(),
      );
      expectNewestFirst(all.body.items);
      const byId = Object.fromEntries(all.body.items.map((row: { executionId: string }) => [row.executionId, row]));
      expect(byId[pending!]).toMatchObject({
        status: 'pending',
        generation: 1,
        attempt: 1,
        triggerId,
        missionId,
        occurrenceId: pending!.slice(2),
        lane: expect.any(String),
        claim: null,
        overdue: false,
      });
      expect(byId[claimed!]).toMatchObject({
        status: 'claimed',
        claim: { consumerId: 'w-1', fence: 1, at: expect.stringMatching(/Z$/) },
      });
      expect(byId[retrying!]).toMatchObject({
        status: 'retrying',
        nextAttemptAt: expect.stringMatching(/Z$/),
        lastError: { code: 'upstream_down', message: 'the API answered 503' },
        completion: { outcome: 'failed', retryable: true, fence: 1 },
      });
      expect(byId[failed!]).toMatchObject({ status: 'failed', completion: { outcome: 'failed', retryable: false } });
      expect(byId[completed!]).toMatchObject({
        status: 'completed',
        lastError: null,
        completion: { outcome: 'succeeded' },
      });
      expect(byId[settled!]).toMatchObject({
        status: 'noncommitted',
        settlement: { settlementId: 's-1', decision: 'noncommitted' },
      });
      // Never the payload, not even in parts.
      expect(JSON.stringify(all.body)).not.toContain('payload-');

      for (const [status, id] of [
        ['pending', pending],
        ['claimed', claimed],
        ['retrying', retrying],
        ['failed', failed],
        ['completed', completed],
        ['noncommitted', settled],
      ] as const) {
        const filtered = await get(`/v1/executions?triggerId=${triggerId}&status=${status}`);
        expect(filtered.body.items.map((row: { executionId: string }) => row.executionId)).toEqual([id]);
      }
      const byMission = await get(`/v1/executions?missionId=${missionId}&status=pending`);
      expect(byMission.body.items.map((row: { executionId: string }) => row.executionId)).toEqual([pending]);
      expect((await get(`/v1/executions?missionId=m-none`)).body.items).toEqual([]);
    });

    it('OP-1 GET /v1/executions pages with an opaque cursor and refuses bad parameters as 400 problems', async () => {
      const { triggerId } = await setup();
      const ids = await admitted(triggerId, 5);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const url: string = `/v1/executions?triggerId=${triggerId}&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
        const page = await get(url);
        expect(page.status).toBe(200);
        expect(page.body.items.length).toBeLessThanOrEqual(2);
        seen.push(...page.body.items.map((row: { executionId: string }) => row.executionId));
        cursor = page.body.nextCursor;
        pages += 1;
      } while (cursor);
      const whole = (await get(`/v1/executions?triggerId=${triggerId}`)).body.items;
      expectNewestFirst(whole);
      expect(seen).toEqual(whole.map((row: { executionId: string }) => row.executionId));
      expect([...seen].sort()).toEqual([...ids].sort());
      expect(pages).toBe(3);

      for (const bad of [
        'status=sleeping',
        'status=dead',
        'limit=0',
        'limit=501',
        'limit=ten',
        'triggerId=%20x',
        'missionId=' + 'm'.repeat(129),
        'cursor=not-a-cursor',
        'minPosition=-1',
        'status=pending&status=claimed',
      ]) {
        const refused = await get(`/v1/executions?${bad}`);
        expect([bad, refused.status, refused.body.code]).toEqual([bad, 400, 'BAD_REQUEST']);
        expect(String(refused.headers['content-type'])).toContain('application/problem+json');
      }
      // A cursor of another list is refused, not misread.
      const occurrences = await get(`/v1/operator/occurrences?triggerId=${triggerId}&limit=1`);
      expect((await get(`/v1/executions?cursor=${occurrences.body.nextCursor}`)).status).toBe(400);
      const deadCursor = Buffer.from(JSON.stringify(['dead-letters', '5'])).toString('base64url');
      expect((await get(`/v1/executions?cursor=${deadCursor}`)).status).toBe(400);
    });

    it('OP-1 EX-4 a failed retryable completion with maxAttempts 1 is dead-lettered: queue, detail history, health counts and recovery', async () => {
      const { triggerId, missionId } = await setup({ delivery: { maxAttempts: 1 } });
      const [dead, waiting, running] = await admitted(triggerId, 3);
      await claim(running!, 'w-9');
      await fail(dead!, await claim(dead!, 'w-2'), true);
      await t.catchUp();

      const queue = await get(`/v1/operator/dead-letters?triggerId=${triggerId}`);
      expect(queue.status).toBe(200);
      expect(queue.body).toEqual({
        items: [
          {
            executionId: dead,
            occurrenceId: dead!.slice(2),
            triggerId,
            missionId,
            reason: 'failed',
            attempts: 1,
            lastError: { code: 'upstream_down', message: 'the API answered 503' },
            deadLetteredAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
            generation: 1,
            recover: { method: 'POST', href: `/v1/operator/executions/${dead}/recover` },
          },
        ],
        nextCursor: null,
      });
      expect((await get(`/v1/operator/dead-letters?missionId=${missionId}`)).body.items).toHaveLength(1);
      expect((await get(`/v1/operator/dead-letters?missionId=m-other`)).body.items).toEqual([]);
      expect((await get(`/v1/operator/dead-letters?triggerId=bad%20id`)).status).toBe(400);
      const listed = await get(`/v1/executions?status=dead_lettered&triggerId=${triggerId}`);
      expect(listed.body.items).toEqual([
        expect.objectContaining({
          executionId: dead,
          status: 'dead_lettered',
          deadLetter: { reason: 'failed', attempts: 1, at: queue.body.items[0].deadLetteredAt },
        }),
      ]);

      const detail = await get(`/v1/operator/executions/${dead}`);
      expect(detail.status).toBe(200);
      expect(detail.body).toMatchObject({
        executionId: dead,
        status: 'dead_lettered',
        attempt: 1,
        generation: 1,
        occurrenceId: dead!.slice(2),
        triggerId,
        missionId,
        lane: expect.any(String),
        claim: null,
        nextAttemptAt: null,
        lastError: { code: 'upstream_down', message: 'the API answered 503' },
        deadLetter: { reason: 'failed', attempts: 1 },
        overdue: false,
      });
      expect(detail.body.history).toEqual([
        expect.objectContaining({ type: 'ExecutionClaimed', generation: 1, attempt: 1, fence: 1, consumerId: 'w-2' }),
        expect.objectContaining({
          type: 'ExecutionCompleted',
          fence: 1,
          outcome: 'failed',
          retryable: true,
          error: { code: 'upstream_down', message: 'the API answered 503' },
        }),
        expect.objectContaining({ type: 'ExecutionDeadLettered', reason: 'failed', attempts: 1 }),
      ]);
      for (const entry of detail.body.history) expect(entry.at).toMatch(/Z$/);
      expect(JSON.stringify(detail.body)).not.toContain('payload-');

      const row = await health(triggerId);
      expect(row.executions).toEqual({ pending: 1, claimed: 1, retrying: 0, dead: 1 });
      expect(row.health).toBe('degraded');
      expect(row.recovery).toEqual([
        { action: 'recover_dead_letters', method: 'GET', href: `/v1/operator/dead-letters?triggerId=${triggerId}` },
      ]);
      // The link leads to exactly the dead letters the row counts.
      expect((await get(row.recovery[0].href)).body.items.map((d: { executionId: string }) => d.executionId)).toEqual([
        dead,
      ]);
      expect(waiting).toBeDefined();

      // EX-4: the recovery leaves the queue, counts the execution pending again and names its actor and reason.
      const recovered = await t.request({
        method: 'POST',
        url: `/v1/operator/executions/${dead}/recover`,
        key: newKey(),
        body: { reason: 'the upstream is back' },
      });
      expect(recovered.status).toBe(202);
      await t.catchUp();
      expect((await get(`/v1/operator/dead-letters?triggerId=${triggerId}`)).body.items).toEqual([]);
      expect((await get(`/v1/executions?status=pending&triggerId=${triggerId}`)).body.items).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ executionId: dead, generation: 2, attempt: 2, deadLetter: null }),
        ]),
      );
      const after = await health(triggerId);
      expect(after.executions).toEqual({ pending: 2, claimed: 1, retrying: 0, dead: 0 });
      expect([after.health, after.recovery]).toEqual(['ok', []]);
      const recoveredDetail = (await get(`/v1/operator/executions/${dead}`)).body;
      expect(recoveredDetail).toMatchObject({ status: 'pending', generation: 2, attempt: 2, deadLetter: null });
      expect(recoveredDetail.history.at(-1)).toMatchObject({
        type: 'RecoveryRequested',
        generation: 2,
        attempt: 2,
        from: 'dead_lettered',
        actor: expect.any(String),
        reason: 'the upstream is back',
      });
    });

    it('OP-1 EX-4 health counts follow every transition: pending, claimed, retrying, ended', async () => {
      const { triggerId } = await setup({ delivery: { maxAttempts: 3 } });
      const [a, b, c] = await admitted(triggerId, 3);
      expect((await health(triggerId)).executions).toEqual({ pending: 3, claimed: 0, retrying: 0, dead: 0 });
      const fenceA = await claim(a!);
      await claim(b!);
      await t.catchUp();
      expect((await health(triggerId)).executions).toEqual({ pending: 1, claimed: 2, retrying: 0, dead: 0 });
      await fail(a!, fenceA, true);
      expect((await post(c!, 'settle', { settlementId: 'give-up' })).body.decision).toBe('noncommitted');
      await t.catchUp();
      const row = await health(triggerId);
      expect(row.executions).toEqual({ pending: 0, claimed: 1, retrying: 1, dead: 0 });
      expect(row.recovery).toEqual([]);
      expect(row.health).toBe('ok');
    });

    it('EX-5 a claim held past maxRuntimeSeconds is overdue by the database clock, in the list and the detail', async () => {
      // 3 s, not 1: a loaded machine must still read the claim back before its runtime is up.
      const { triggerId } = await setup({ delivery: { maxRuntimeSeconds: 3 } });
      const [slow, idle] = await admitted(triggerId, 2);
      await claim(slow!);
      await t.catchUp();
      expect((await get(`/v1/operator/executions/${slow}`)).body.overdue).toBe(false);
      await sleep(3_300);
      const detail = await get(`/v1/operator/executions/${slow}`);
      expect(detail.body).toMatchObject({ status: 'claimed', overdue: true, delivery: { maxRuntimeSeconds: 3 } });
      const rows = (await get(`/v1/executions?triggerId=${triggerId}`)).body.items;
      const overdue = Object.fromEntries(
        rows.map((r: { executionId: string; overdue: boolean }) => [r.executionId, r.overdue]),
      );
      expect(overdue).toEqual({ [idle!]: false, [slow!]: true });
      expect(rows[0]).toMatchObject({ maxRuntimeSeconds: 3 });
      // Overdue is shown, never acted on: the claim still holds and completes normally.
      const fence = detail.body.claim.fence;
      expect((await post(slow!, 'complete', { fence, outcome: 'succeeded' })).status).toBe(200);
      await t.catchUp();
      expect((await get(`/v1/operator/executions/${slow}`)).body.overdue).toBe(false);
    });

    it("OP-1 SEC-1 another tenant sees none of the caller's executions; lists need operator:read", async () => {
      const { triggerId } = await setup({ delivery: { maxAttempts: 1 } });
      const [executionId] = await admitted(triggerId, 1);
      await fail(executionId!, await claim(executionId!), true);
      await t.catchUp();
      expect((await get('/v1/executions', 'tenant-b')).body).toEqual({ items: [], nextCursor: null });
      expect((await get('/v1/operator/dead-letters', 'tenant-b')).body).toEqual({ items: [], nextCursor: null });
      expect((await get(`/v1/executions?triggerId=${triggerId}`, 'tenant-b')).body.items).toEqual([]);
      const foreign = await get(`/v1/operator/executions/${executionId}`, 'tenant-b');
      expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
      const writer = await t.token({ scope: 'executions:write' });
      expect((await t.request({ method: 'GET', url: '/v1/executions', token: writer })).status).toBe(403);
      expect((await t.request({ method: 'GET', url: '/v1/operator/dead-letters', token: writer })).status).toBe(403);
      expect((await t.request({ method: 'GET', url: '/v1/executions', token: null })).status).toBe(401);
      expect((await get('/v1/operator/executions/bad%20id')).status).toBe(400);
      expect((await get('/v1/executions')).body.items.length).toBeGreaterThan(0);
    });

    it('OP-1 minPosition waits for the executions read model (read-your-writes)', async () => {
      const { triggerId } = await setup();
      const [executionId] = await admitted(triggerId, 1);
      const claimed = await post(executionId!, 'claim', { consumerId: 'w' });
      // Nothing folds in the background here: the read answers stale, then fresh once folded.
      const position = (await t.sql.query<{ p: string }>('SELECT max(position)::text AS p FROM events')).rows[0]!.p;
      const stale = await get(`/v1/executions?triggerId=${triggerId}&minPosition=${position}`);
      expect(stale.body).toMatchObject({ stale: true, items: [{ status: 'pending' }] });
      await t.catchUp();
      const fresh = await get(`/v1/executions?triggerId=${triggerId}&minPosition=${position}`);
      expect(fresh.body).not.toHaveProperty('stale');
      expect(fresh.body.items).toEqual([
        expect.objectContaining({ status: 'claimed', claim: expect.objectContaining({ fence: claimed.body.fence }) }),
      ]);
    });

    describe('OP-3 replay safety of the executions read model and the health counts', () => {
      const projectionsUnderTest: Array<[string, Projection]> = [
        ['executions', executionsProjection],
        ['occurrences', occurrenceViews],
      ];

      it.each(projectionsUnderTest)('applying every event of %s again changes no row', async (_, projection) => {
        const before = await dumpTables(t.sql, projection);
        const events = await t.infra.store.readAll({ maxCount: 10_000 });
        await t.sql.transaction(async (tx) => {
          for (const event of events) if (projection.handles.includes(event.type)) await projection.apply(event, tx);
        });
        expect(await dumpTables(t.sql, projection)).toEqual(before);
      });

      it.each(projectionsUnderTest)('a rebuild of %s from position 0 equals the live rows', async (_, projection) => {
        const before = await dumpTables(t.sql, projection);
        expect(Object.values(before).flat().length).toBeGreaterThan(0);
        await t.app.get(ProjectionRunners).get(projection.name).rebuild();
        expect(await dumpTables(t.sql, projection)).toEqual(before);
      });
    });
  });
}
