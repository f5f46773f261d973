import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { InProcessWakeups, WakeupDispatcher } from '../../src/adapters/wakeup/index.js';
import { WAKEUP_EVENT_TYPES } from '../../src/domain/execution/wakeup.js';
import { occurrenceStream } from '../../src/domain/shared/ids.js';
import { post, standardHeaders, webhookSetup } from '../ingress/ingress-client.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';

const TENANT = 'tenant-a';
const grants = missionGrants({ maxExecutionsPerHour: 100, maxConcurrent: 10 });
/** Admits only opened or reopened pull requests that are no drafts and touch at most 500 lines. */
const GUARD = {
  all: [
    { pointer: '/action', in: ['opened', 'reopened'] },
    { not: { pointer: '/draft', equals: true } },
    { pointer: '/lines', lte: 500 },
  ],
};

/** BA-2 over HTTP: manual fires and signed webhooks through the whole pipeline, on one store kind. */
export function guardsSuite(kind: StoreKind): void {
  describe(`BA-2 guards at admission (${kind})`, () => {
    let t: TestApp;
    let n = 0;
    const admit = () => t.app.get(AdmissionProcessor).subscription.catchUp();

    beforeAll(async () => {
      // Admission and read models are driven by hand, so each test sees exactly what its deliveries caused.
      t = await startTestApp(kind, { autostart: false });
    });
    afterAll(async () => {
      await t?.close();
    });

    async function manualTrigger(guard: unknown = GUARD): Promise<{ missionId: string; triggerId: string }> {
      n += 1;
      const missionId = `m-g${n}`;
      const triggerId = `t-g${n}`;
      const m = await t.request({
        method: 'PUT',
        url: `/v1/missions/${missionId}`,
        key: newKey(),
        body: { state: 'active', grants },
      });
      expect(m.status).toBe(200);
      const tr = await t.request({
        method: 'PUT',
        url: `/v1/triggers/${triggerId}`,
        key: newKey(),
        body: { expectedRevision: 0, missionId, type: 'manual', guard },
      });
      expect(tr.status).toBe(200);
      return { missionId, triggerId };
    }

    const fire = (triggerId: string, input: unknown) =>
      t.request({ method: 'POST', url: `/v1/triggers/${triggerId}/occurrences`, key: newKey(), body: { input } });

    const decisions = async (occurrenceId: string) =>
      (await t.infra.store.readStream(occurrenceStream(occurrenceId))).filter((e) => e.type !== 'OccurrenceObserved');

    const count = async (sql: string, values: unknown[]) =>
      Number((await t.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${sql}) x`, values)).rows[0]!.n);

    /** Nothing an execution or a wakeup comes from: no admission, no budget unit, no claimable row. */
    const startedNothing = async (occurrenceId: string, missionId: string) => {
      expect(
        await count(`SELECT 1 FROM events WHERE type = ANY($1::text[]) AND data->>'occurrenceId' = $2`, [
          [...WAKEUP_EVENT_TYPES],
          occurrenceId,
        ]),
      ).toBe(0);
      expect(
        await count(
          `SELECT 1 FROM events WHERE type IN ('BudgetConsumed', 'BudgetUnitsConsumed') AND data->>'missionId' = $1`,
          [missionId],
        ),
      ).toBe(0);
      await t.catchUp();
      expect(await count(`SELECT 1 FROM rm_pending_executions WHERE mission_id = $1`, [missionId])).toBe(0);
    };

    it('BA-2 OP-1 OP-2 a manual fire the guard finds false is suppressed with guard_false, in every read model', async () => {
      const { triggerId, missionId } = await manualTrigger();
      const fired = await fire(triggerId, { action: 'closed', draft: false, lines: 10 });
      expect(fired.status).toBe(202);
      const occurrenceId = fired.body.occurrenceId as string;
      await admit();
      const [decided, ...more] = await decisions(occurrenceId);
      expect(more).toHaveLength(0);
      expect(decided).toMatchObject({
        type: 'OccurrenceSuppressed',
        data: {
          reason: 'guard_false',
          evidence: { triggerRevision: 1, clause: '/guard/all/0', pointer: '/action', test: 'in' },
        },
      });
      await startedNothing(occurrenceId, missionId);

      await t.catchUp();
      const detail = await t.request({ method: 'GET', url: `/v1/operator/occurrences/${occurrenceId}` });
      expect(detail.status).toBe(200);
      expect(detail.body).toMatchObject({
        status: 'suppressed',
        reason: 'guard_false',
        executionId: null,
        evidence: { clause: '/guard/all/0', pointer: '/action' },
      });
      const listed = await t.request({
        method: 'GET',
        url: `/v1/operator/occurrences?triggerId=${triggerId}&status=suppressed&reason=guard_false`,
      });
      expect(listed.status).toBe(200);
      expect(listed.body.items.map((o: { occurrenceId: string }) => o.occurrenceId)).toEqual([occurrenceId]);
      const health = await t.request({ method: 'GET', url: `/v1/operator/triggers/${triggerId}` });
      expect(health.body).toMatchObject({
        health: 'ok',
        lastOccurrence: { occurrenceId, status: 'suppressed', reason: 'guard_false' },
        counts: { observed: 1, admitted: 0, blocked: {}, suppressed: { guard_false: 1 } },
        executions: { pending: 0 },
      });
    });

    it('BA-2 hostile: a string where lte expects a number is guard_fault (blocked), never false', async () => {
      const { triggerId, missionId } = await manualTrigger();
      const fired = await fire(triggerId, { action: 'opened', draft: false, lines: '10' });
      await admit();
      const [decided] = await decisions(fired.body.occurrenceId);
      expect(decided).toMatchObject({
        type: 'OccurrenceBlocked',
        data: {
          reason: 'guard_fault',
          evidence: { clause: '/guard/all/2', pointer: '/lines', test: 'lte', fault: 'not_a_number', found: 'string' },
        },
      });
      await startedNothing(fired.body.occurrenceId, missionId);
      await t.catchUp();
      const health = await t.request({ method: 'GET', url: `/v1/operator/triggers/${triggerId}` });
      expect(health.body).toMatchObject({
        // A guard that cannot be evaluated is the Trigger's own machinery in trouble.
        health: 'degraded',
        lastOccurrence: { status: 'blocked', reason: 'guard_fault' },
        counts: { blocked: { guard_fault: 1 }, suppressed: {} },
      });
    });

    it('BA-2 a pointer through a non-object is guard_fault, even for an exists test', async () => {
      const { triggerId } = await manualTrigger({ pointer: '/action/by', exists: false });
      const fired = await fire(triggerId, { action: 'opened' });
      await admit();
      const [decided] = await decisions(fired.body.occurrenceId);
      expect(decided).toMatchObject({
        type: 'OccurrenceBlocked',
        data: { reason: 'guard_fault', evidence: { fault: 'through_non_object', at: '/action', found: 'string' } },
      });
    });

    it('BA-2 a true guard admits with an execution, and a missing value is false, not a fault', async () => {
      const { triggerId } = await manualTrigger();
      const yes = await fire(triggerId, { action: 'reopened', lines: 500 });
      const missing = await fire(triggerId, { action: 'opened' });
      await admit();
      const [admitted] = await decisions(yes.body.occurrenceId);
      expect(admitted).toMatchObject({
        type: 'OccurrenceAdmitted',
        data: { request: { input: { action: 'reopened' } } },
      });
      const [suppressed] = await decisions(missing.body.occurrenceId);
      expect(suppressed).toMatchObject({
        type: 'OccurrenceSuppressed',
        data: { reason: 'guard_false', evidence: { clause: '/guard/all/2', pointer: '/lines' } },
      });
    });

    it('BA-2 EX-1 a suppressed Occurrence wakes no one; an admitted one does (the same measure)', async () => {
      const wakeups = t.app.get(InProcessWakeups);
      const dispatcher = t.app.get(WakeupDispatcher).subscription;
      const { triggerId } = await manualTrigger();
      await dispatcher.catchUp(); // without Redis it starts from the log's head
      const before = wakeups.seen(TENANT);
      await fire(triggerId, { action: 'closed', lines: 1 });
      await admit();
      await dispatcher.catchUp();
      expect(wakeups.seen(TENANT)).toBe(before);
      await fire(triggerId, { action: 'opened', lines: 1 });
      await admit();
      await dispatcher.catchUp();
      expect(wakeups.seen(TENANT)).toBeGreaterThan(before);
    });

    it('BA-2 ?wait=decision answers suppressed with guard_false and no execution', async () => {
      const { triggerId } = await manualTrigger();
      const processor = t.app.get(AdmissionProcessor).subscription;
      processor.start();
      try {
        const response = await t.request({
          method: 'POST',
          url: `/v1/triggers/${triggerId}/occurrences?wait=decision`,
          key: newKey(),
          body: { input: { action: 'closed', lines: 1 } },
        });
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({ status: 'suppressed', reason: 'guard_false', executionId: null });
        const faulty = await t.request({
          method: 'POST',
          url: `/v1/triggers/${triggerId}/occurrences?wait=decision`,
          key: newKey(),
          body: { input: { action: 'opened', lines: 'many' } },
        });
        expect(faulty.body).toMatchObject({ status: 'blocked', reason: 'guard_fault', executionId: null });
      } finally {
        await processor.stop();
      }
    });

    it('BA-2 a manual retry of a suppressed fire replays it; the key stays consumed', async () => {
      const { triggerId } = await manualTrigger();
      const key = newKey();
      const send = () =>
        t.request({
          method: 'POST',
          url: `/v1/triggers/${triggerId}/occurrences`,
          key,
          body: { input: { action: 'closed' } },
        });
      const first = await send();
      await admit();
      const again = await send();
      expect(again.body.occurrenceId).toBe(first.body.occurrenceId);
      await admit();
      expect((await decisions(first.body.occurrenceId)).map((e) => e.type)).toEqual(['OccurrenceSuppressed']);
    });

    describe('given a signed webhook Trigger with a guard', () => {
      const deliver = async (s: { sourceId: string; secret: string }, payload: unknown, id: string) => {
        const body = JSON.stringify(payload);
        return post(t, s.sourceId, body, standardHeaders(s.secret, body, { id }));
      };

      it('BA-2 WH-7 false is suppressed, and its redelivery is a duplicate: the identity is consumed', async () => {
        const s = await webhookSetup(t, `guard-false-${kind}`, { trigger: { guard: GUARD } });
        const payload = { type: 'pull_request', action: 'closed', lines: 3 };
        const first = await deliver(s, payload, 'msg_guard_false');
        expect(first.status).toBe(202);
        const occurrenceId = first.body.occurrences[0].occurrenceId as string;
        await admit();
        const redelivered = await deliver(s, payload, 'msg_guard_false');
        expect(redelivered.status).toBe(200);
        expect(redelivered.body.occurrences).toEqual([{ triggerId: s.triggerId, occurrenceId, status: 'duplicate' }]);
        await admit();
        const events = await decisions(occurrenceId);
        expect(events.map((e) => e.type)).toEqual(['OccurrenceSuppressed']);
        expect(events[0]!.data).toMatchObject({ reason: 'guard_false', evidence: { clause: '/guard/all/0' } });
        await startedNothing(occurrenceId, s.missionId);
      });

      it('BA-2 hostile: a string where lte expects a number is blocked guard_fault; its redelivery is a duplicate', async () => {
        const s = await webhookSetup(t, `guard-fault-${kind}`, { trigger: { guard: GUARD } });
        const payload = { type: 'pull_request', action: 'opened', lines: '3' };
        const first = await deliver(s, payload, 'msg_guard_fault');
        await admit();
        const redelivered = await deliver(s, payload, 'msg_guard_fault');
        expect(redelivered.status).toBe(200);
        expect(redelivered.body.occurrences[0].status).toBe('duplicate');
        const [decided] = await decisions(first.body.occurrences[0].occurrenceId);
        expect(decided).toMatchObject({
          type: 'OccurrenceBlocked',
          data: { reason: 'guard_fault', evidence: { fault: 'not_a_number', pointer: '/lines' } },
        });
      });

      it('BA-2 true is admitted with its execution request', async () => {
        const s = await webhookSetup(t, `guard-true-${kind}`, { trigger: { guard: GUARD } });
        const first = await deliver(s, { type: 'pull_request', action: 'opened', lines: 3 }, 'msg_guard_true');
        await admit();
        const [decided] = await decisions(first.body.occurrences[0].occurrenceId);
        expect(decided).toMatchObject({ type: 'OccurrenceAdmitted', data: { request: { triggerId: s.triggerId } } });
      });
    });

    it('BA-2 a guard outside the grammar or its bounds is 422 invalid_definition with pointers', async () => {
      const missionId = (await manualTrigger()).missionId;
      const put = (guard: unknown) =>
        t.request({
          method: 'PUT',
          url: `/v1/triggers/t-bad-guard`,
          key: newKey(),
          body: { missionId, type: 'manual', guard },
        });
      const regex = await put({ pointer: '/a', matches: '^x.*' });
      expect(regex.status).toBe(422);
      expect(regex.body).toMatchObject({ code: 'invalid_definition', errors: [{ pointer: '/guard/matches' }] });
      let deep: unknown = { pointer: '/a', exists: true };
      for (let i = 0; i < 9; i++) deep = { not: deep };
      const tooDeep = await put(deep);
      expect(tooDeep.status).toBe(422);
      expect(tooDeep.body.errors[0].pointer).toBe(`/guard${'/not'.repeat(8)}`);
      const typed = await put({
        any: [
          { pointer: '/n', gt: '3' },
          { pointer: '/s', prefix: 1 },
        ],
      });
      expect(typed.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual([
        '/guard/any/0/gt',
        '/guard/any/1/prefix',
      ]);
      const huge = await put({ pointer: '/a', in: Array.from({ length: 300 }, (_, i) => i) });
      expect(huge.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/guard/in']);
      expect((await t.request({ method: 'GET', url: '/v1/triggers/t-bad-guard' })).status).toBe(404);
    });
  });
}
