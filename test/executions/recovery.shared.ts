import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { executionStream, occurrenceStream, overlapStream } from '../../src/domain/shared/ids.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';

const grants = missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: 100 });

/** EX-4 over HTTP: the operator's audited recovery, re-checked against the Mission and Trigger as they are now. */
export function recoverySuite(kind: StoreKind): void {
  describe(`execution recovery (${kind})`, () => {
    let t: TestApp;
    let n = 0;
    const admit = () => t.app.get(AdmissionProcessor).subscription.catchUp();

    beforeAll(async () => {
      t = await startTestApp(kind, { autostart: false });
    });
    afterAll(async () => {
      await t?.close();
    });

    const ok = async (answer: Promise<{ status: number; body: any }>, status = 200) => {
      const { status: got, body } = await answer;
      expect([got, body]).toEqual([status, expect.anything()]);
      return body;
    };

    async function setup(definition: Record<string, unknown> = {}) {
      n += 1;
      const missionId = `m-r${n}`;
      const triggerId = `t-r${n}`;
      await ok(
        t.request({
          method: 'PUT',
          url: `/v1/missions/${missionId}`,
          key: newKey(),
          body: { state: 'active', grants },
        }),
      );
      await ok(
        t.request({
          method: 'PUT',
          url: `/v1/triggers/${triggerId}`,
          key: newKey(),
          body: { expectedRevision: 0, missionId, type: 'manual', ...definition },
        }),
      );
      return { missionId, triggerId };
    }

    /** Fires, admits and returns the new execution's id. */
    const admitted = async (triggerId: string) => {
      const fired = await ok(
        t.request({
          method: 'POST',
          url: `/v1/triggers/${triggerId}/occurrences`,
          key: newKey(),
          body: { input: { run: ++n } },
        }),
        202,
      );
      await admit();
      const [decided] = (await t.infra.store.readStream(occurrenceStream(fired.occurrenceId))).filter(
        (e) => e.type !== 'OccurrenceObserved',
      );
      const data = decided!.data as { executionId?: string; reason?: string };
      expect(data.reason).toBeUndefined();
      return data.executionId!;
    };
    const post = (executionId: string, action: string, body: unknown) =>
      t.request({ method: 'POST', url: `/v1/executions/${executionId}/${action}`, key: newKey(), body });
    const recover = (
      executionId: string,
      body: unknown = { reason: 'the downstream outage is over' },
      options: { key?: string | null; token?: string } = {},
    ) =>
      t.request({
        method: 'POST',
        url: `/v1/operator/executions/${executionId}/recover`,
        key: options.key === null ? undefined : (options.key ?? newKey()),
        body,
        token: options.token,
      });
    /** Claimed and completed as a final (not retryable) failure: api.md's `failed`. */
    const failed = async (triggerId: string) => {
      const executionId = await admitted(triggerId);
      const { fence } = await ok(post(executionId, 'claim', { consumerId: 'w-1' }));
      const done = await ok(
        post(executionId, 'complete', { fence, outcome: 'failed', error: { code: 'boom', message: 'it broke' } }),
      );
      expect(done.status).toBe('failed');
      return { executionId, fence: fence as number };
    };
    const recoveries = async (executionId: string) =>
      (await t.infra.store.readStream(executionStream(executionId))).filter((e) => e.type === 'RecoveryRequested');
    const mission = (missionId: string, state: string) =>
      ok(t.request({ method: 'PUT', url: `/v1/missions/${missionId}`, key: newKey(), body: { state, grants } }));

    it('EX-4 a failed execution recovers into a new generation, claimable with a higher fence; the old fence is refused', async () => {
      const { triggerId } = await setup();
      const { executionId, fence } = await failed(triggerId);
      const recovered = await recover(executionId);
      expect(recovered.status).toBe(202);
      expect(recovered.body).toEqual({ executionId, generation: 2, status: 'pending', position: expect.any(Number) });

      // The last holder's late, different completion does not overwrite its recorded failure.
      const late = await post(executionId, 'complete', { fence, outcome: 'succeeded' });
      expect([late.status, late.body.code]).toEqual([409, 'execution_completed']);
      const claim = await ok(post(executionId, 'claim', { consumerId: 'w-2' }));
      expect(claim).toMatchObject({ executionId, generation: 2, fence: fence + 1 });
      const stale = await post(executionId, 'complete', { fence, outcome: 'succeeded' });
      expect([stale.status, stale.body.code]).toEqual([409, 'fence_mismatch']);
      expect(await ok(post(executionId, 'complete', { fence: claim.fence, outcome: 'succeeded' }))).toMatchObject({
        status: 'completed',
      });
      // A succeeded execution is done for good.
      const again = await recover(executionId);
      expect([again.status, again.body.code]).toEqual([409, 'execution_completed']);
    });

    it('EX-4 the recovery is audited: actor (token subject), reason and Idempotency-Key on RecoveryRequested', async () => {
      const { triggerId } = await setup();
      const { executionId } = await failed(triggerId);
      const key = newKey();
      const token = await t.token({ subject: 'oncall-alice' });
      expect((await recover(executionId, { reason: 'INC-42 fixed' }, { key, token })).status).toBe(202);
      const [event, ...more] = await recoveries(executionId);
      expect(more).toEqual([]);
      expect(event!.data).toMatchObject({
        executionId,
        from: 'failed',
        actor: 'oncall-alice',
        reason: 'INC-42 fixed',
        idempotencyKey: key,
        generation: 2,
      });
      expect(event!.metadata.actor).toBe('oncall-alice');
    });

    it('EX-4 a dead letter (maxAttempts 1, a retryable failure) recovers into a new generation with a fresh delivery budget', async () => {
      const { triggerId } = await setup({ delivery: { maxAttempts: 1 } });
      const executionId = await admitted(triggerId);
      const { fence } = await ok(post(executionId, 'claim', { consumerId: 'w-1' }));
      const done = await ok(post(executionId, 'complete', { fence, outcome: 'failed', retryable: true }));
      expect(done.status).toBe('dead_lettered');
      const refused = await post(executionId, 'claim', { consumerId: 'w-2' });
      expect([refused.status, refused.body.code]).toEqual([409, 'execution_dead_lettered']);

      expect((await recover(executionId)).body).toEqual({
        executionId,
        generation: 2,
        status: 'pending',
        position: expect.any(Number),
      });
      expect((await recoveries(executionId)).map((e) => (e.data as { from: string }).from)).toEqual(['dead_lettered']);
      const again = await ok(post(executionId, 'claim', { consumerId: 'w-2' }));
      expect(again).toMatchObject({ generation: 2, fence: fence + 1 });
      // The recovery started a new budget of one delivery: this failure dead-letters it again, and it recovers again.
      const second = await ok(
        post(executionId, 'complete', { fence: again.fence, outcome: 'failed', retryable: true }),
      );
      expect(second.status).toBe('dead_lettered');
      expect((await recover(executionId)).body).toMatchObject({ generation: 3, status: 'pending' });
    });

    it('EX-4 a noncommitted execution that never ran keeps its generation; one settled after a claim starts a new one', async () => {
      const { triggerId } = await setup();
      const unclaimed = await admitted(triggerId);
      expect((await ok(post(unclaimed, 'settle', { settlementId: 's-1' }))).decision).toBe('noncommitted');
      expect((await recover(unclaimed)).body).toMatchObject({ generation: 1, status: 'pending' });
      expect(await ok(post(unclaimed, 'claim', { consumerId: 'w' }))).toMatchObject({ generation: 1, fence: 1 });

      const claimed = await admitted(triggerId);
      const { fence } = await ok(post(claimed, 'claim', { consumerId: 'crashed' }));
      expect((await ok(post(claimed, 'settle', { settlementId: 's-2' }))).decision).toBe('noncommitted');
      expect((await recover(claimed)).body).toMatchObject({ generation: 2, status: 'pending' });
      // The settled holder's fence is not the one of any claim now.
      const late = await post(claimed, 'complete', { fence, outcome: 'succeeded' });
      expect([late.status, late.body.code]).toEqual([409, 'fence_mismatch']);
      expect(await ok(post(claimed, 'claim', { consumerId: 'w' }))).toMatchObject({ generation: 2, fence: fence + 1 });
    });

    it('EX-4 SEC-3 a replayed recovery answers the same and records ONE RecoveryRequested; another body with the key conflicts', async () => {
      const { triggerId } = await setup();
      const { executionId } = await failed(triggerId);
      const key = newKey();
      const first = await recover(executionId, { reason: 'retry after fix' }, { key });
      const replay = await recover(executionId, { reason: 'retry after fix' }, { key });
      expect(first.status).toBe(202);
      expect([replay.status, replay.body]).toEqual([202, first.body]);
      expect(replay.headers['idempotency-replayed']).toBe('true');
      const conflict = await recover(executionId, { reason: 'another reason' }, { key });
      expect([conflict.status, conflict.body.code]).toEqual([409, 'idempotency_key_conflict']);
      expect(await recoveries(executionId)).toHaveLength(1);
      // A fresh key for the same recovery finds it pending: delivered anyway, nothing more to recover.
      const fresh = await recover(executionId, { reason: 'retry after fix' });
      expect([fresh.status, fresh.body.code]).toEqual([409, 'not_recoverable']);
      expect(await recoveries(executionId)).toHaveLength(1);
    });

    it('EX-4 a claim without a settlement is settlement_required (its side effect may have happened); pending is not_recoverable', async () => {
      const { triggerId } = await setup();
      const executionId = await admitted(triggerId);
      const pending = await recover(executionId);
      expect([pending.status, pending.body.code]).toEqual([409, 'not_recoverable']);
      await ok(post(executionId, 'claim', { consumerId: 'maybe-crashed' }));
      const claimed = await recover(executionId);
      expect(claimed.status).toBe(409);
      expect(claimed.body).toMatchObject({ code: 'settlement_required', type: expect.any(String) });
      expect(claimed.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(await recoveries(executionId)).toEqual([]);
    });

    it.each([
      ['paused', 'mission_paused'],
      ['cancelled', 'mission_cancelled'],
      ['revoked', 'mission_revoked'],
    ])(
      'EX-4 AD-3 a Mission %s after the failure refuses the recovery: recovery_refused, reason %s',
      async (state, reason) => {
        const { triggerId, missionId } = await setup();
        const { executionId } = await failed(triggerId);
        await mission(missionId, state);
        const refused = await recover(executionId);
        expect(refused.status).toBe(409);
        expect(refused.body).toMatchObject({ code: 'recovery_refused', reason });
        expect(await recoveries(executionId)).toEqual([]);
      },
    );

    it('EX-4 AD-3 a paused Mission refuses, and once active again the same execution recovers', async () => {
      const { triggerId, missionId } = await setup();
      const { executionId } = await failed(triggerId);
      await mission(missionId, 'paused');
      expect((await recover(executionId)).body.reason).toBe('mission_paused');
      await mission(missionId, 'active');
      expect((await recover(executionId)).status).toBe(202);
    });

    it('EX-4 AD-3 a disabled Trigger refuses the recovery with trigger_disabled', async () => {
      const { triggerId } = await setup();
      const { executionId } = await failed(triggerId);
      await ok(t.request({ method: 'POST', url: `/v1/triggers/${triggerId}/disable`, key: newKey(), body: {} }));
      const refused = await recover(executionId);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ code: 'recovery_refused', reason: 'trigger_disabled' });
      expect(await recoveries(executionId)).toEqual([]);
    });

    it('EX-4 AD-3 a revised Trigger supersedes the failed revision (revision_superseded) unless it accepts older revisions', async () => {
      const strict = await setup();
      const { executionId } = await failed(strict.triggerId);
      await ok(
        t.request({
          method: 'PUT',
          url: `/v1/triggers/${strict.triggerId}`,
          key: newKey(),
          body: { missionId: strict.missionId, type: 'manual', overlap: 'skip' },
        }),
      );
      const refused = await recover(executionId);
      expect(refused.body).toMatchObject({ code: 'recovery_refused', reason: 'revision_superseded' });

      const lenient = await setup({ acceptOlderRevisions: true });
      const older = await failed(lenient.triggerId);
      await ok(
        t.request({
          method: 'PUT',
          url: `/v1/triggers/${lenient.triggerId}`,
          key: newKey(),
          body: { missionId: lenient.missionId, type: 'manual', acceptOlderRevisions: true, overlap: 'skip' },
        }),
      );
      expect((await recover(older.executionId)).status).toBe(202);
    });

    it('EX-4 BA-3 recovering an overlap-skip execution takes the marker back', async () => {
      const { triggerId } = await setup({ overlap: 'skip' });
      const { executionId } = await failed(triggerId);
      expect((await recover(executionId)).status).toBe(202);
      const markers = (await t.infra.store.readStream(overlapStream('tenant-a', triggerId))).map((e) => [
        e.type,
        (e.data as { executionId: string }).executionId,
      ]);
      expect(markers).toEqual([
        ['TriggerExecutionStarted', executionId],
        ['TriggerExecutionEnded', executionId],
        ['TriggerExecutionStarted', executionId],
      ]);
    });

    it('EX-4 BA-3 a recovery while another execution of an overlap-skip Trigger runs is recovery_refused overlap_skip; once it ended, recovery runs', async () => {
      const { triggerId } = await setup({ overlap: 'skip' });
      const first = await failed(triggerId);
      const second = await admitted(triggerId);
      const refused = await recover(first.executionId);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ code: 'recovery_refused', reason: 'overlap_skip' });
      expect(refused.body.detail).toContain(second);
      expect(await recoveries(first.executionId)).toEqual([]);

      const { fence } = await ok(post(second, 'claim', { consumerId: 'w-3' }));
      await ok(post(second, 'complete', { fence, outcome: 'succeeded' }));
      expect((await recover(first.executionId)).status).toBe(202);
    });

    it('EX-4 AD-2 a Trigger deleted and created again under its id does not take back the deleted life’s work, even accepting older revisions', async () => {
      const { triggerId, missionId } = await setup({ acceptOlderRevisions: true });
      const { executionId } = await failed(triggerId);
      await ok(t.request({ method: 'DELETE', url: `/v1/triggers/${triggerId}`, key: newKey(), body: {} }));
      await ok(
        t.request({
          method: 'PUT',
          url: `/v1/triggers/${triggerId}`,
          key: newKey(),
          body: { expectedRevision: 0, missionId, type: 'manual', acceptOlderRevisions: true },
        }),
      );
      const refused = await recover(executionId);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ code: 'recovery_refused', reason: 'trigger_deleted' });
      expect(await recoveries(executionId)).toEqual([]);
    });

    it('SEC-4 a missing or mistyped member is one message, not every check it failed at once', async () => {
      const { triggerId } = await setup();
      const { executionId } = await failed(triggerId);
      const missing = await recover(executionId, {});
      expect([missing.status, missing.body.errors]).toEqual([
        400,
        [{ pointer: '/reason', message: 'reason is required' }],
      ]);
      const mistyped = await recover(executionId, { reason: 5 });
      expect(mistyped.body.errors).toEqual([{ pointer: '/reason', message: 'reason must be a string' }]);
      const blank = await recover(executionId, { reason: ' ' });
      expect(blank.body.errors).toEqual([{ pointer: '/reason', message: 'reason must not be blank' }]);
    });

    it('EX-4 SEC-4 the route is documented with its scope and problem codes in the OpenAPI document', async () => {
      const doc = await t.request({ method: 'GET', url: '/docs/openapi.json', token: null });
      const route = doc.body.paths['/v1/operator/executions/{executionId}/recover'].post;
      expect(route['x-required-scope']).toBe('operator:recover');
      expect(Object.keys(route.responses)).toEqual(expect.arrayContaining(['202', '400', '403', '404', '409']));
      for (const code of ['settlement_required', 'recovery_refused', 'not_recoverable', 'idempotency_key_conflict'])
        expect(route.responses['409'].description).toContain(code);
    });

    it('EX-4 SEC-1 SEC-2 SEC-3 hostile requests: no key, no scope, another tenant, bad ids and bodies change nothing', async () => {
      const { triggerId } = await setup();
      const { executionId } = await failed(triggerId);
      const expectProblem = async (answer: Promise<{ status: number; body: any }>, status: number, code?: string) => {
        const { status: got, body } = await answer;
        expect([got, code === undefined ? undefined : body.code]).toEqual([status, code]);
      };
      await expectProblem(recover(executionId, undefined, { key: null }), 400, 'idempotency_key_required');
      await expectProblem(recover(executionId, undefined, { key: 'has spaces' }), 400, 'idempotency_key_invalid');
      await expectProblem(recover(executionId, undefined, { token: await t.token({ scope: 'operator:read' }) }), 403);
      await expectProblem(
        recover(executionId, undefined, { token: await t.token({ scope: 'executions:write operator:read' }) }),
        403,
      );
      await expectProblem(
        recover(executionId, undefined, { token: await t.token({ tenant: 'tenant-b' }) }),
        404,
        'not_found',
      );
      await expectProblem(recover(`x-${'0'.repeat(64)}`), 404, 'not_found');
      await expectProblem(recover('no-such-execution'), 404, 'not_found');
      await expectProblem(recover('bad%20id%21'), 400, 'BAD_REQUEST');
      await expectProblem(recover(`x-${'g'.repeat(64)}`), 404, 'not_found');
      await expectProblem(recover(executionId, { reason: 'r'.repeat(2001) }), 400, 'BAD_REQUEST');
      await expectProblem(recover(executionId, {}), 400, 'BAD_REQUEST');
      await expectProblem(recover(executionId, { reason: '   ' }), 400, 'BAD_REQUEST');
      await expectProblem(recover(executionId, { reason: 42 }), 400, 'BAD_REQUEST');
      await expectProblem(recover(executionId, ['reason']), 400, 'BAD_REQUEST');
      await expectProblem(recover(executionId, 'not json'), 400, 'BAD_REQUEST');
      await expectProblem(recover(executionId, null), 400, 'BAD_REQUEST');
      expect(await recoveries(executionId)).toEqual([]);
      // None of the above used up anything: the longest reason allowed recovers it.
      expect((await recover(executionId, { reason: 'r'.repeat(2000) })).status).toBe(202);
    });
  });
}
