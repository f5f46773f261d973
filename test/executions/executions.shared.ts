import { CommandBus } from '@nestjs/cqrs';
import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { AdmitOccurrenceCommand } from '../../src/commands/admit-occurrence/admit-occurrence.command.js';
import { SqlEventStore } from '../../src/adapters/eventstore/sql/sql-event-store.js';
import { transitionExecution } from '../../src/commands/shared/execution-transition.js';
import type { ExecutionCommand } from '../../src/domain/execution/index.js';
import { executionStream, occurrenceStream, overlapStream } from '../../src/domain/shared/ids.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';
import { missionSlotEvents } from '../support/mission-slots.js';

const grants = missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: 100 });

/** EX-2/EX-3 over HTTP and AD-2 max concurrency: a slot is held from the claim (admission, when opted into) until the execution ends. */
export function executionsSuite(kind: StoreKind): void {
  describe(`executions: claim, complete, settle and Mission concurrency (${kind})`, () => {
    let t: TestApp;
    let n = 0;
    const admit = () => t.app.get(AdmissionProcessor).subscription.catchUp();

    beforeAll(async () => {
      t = await startTestApp(kind, { autostart: false });
    });
    afterAll(async () => {
      await t?.close();
    });

    async function setup(
      mission: Partial<typeof grants> = {},
      constraints: Record<string, unknown> = {},
      definition: Record<string, unknown> = {},
    ) {
      n += 1;
      const missionId = `m-x${n}`;
      const triggerId = `t-x${n}`;
      expect(
        (
          await t.request({
            method: 'PUT',
            url: `/v1/missions/${missionId}`,
            key: newKey(),
            body: { state: 'active', grants: { ...grants, ...mission } },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await t.request({
            method: 'PUT',
            url: `/v1/triggers/${triggerId}`,
            key: newKey(),
            body: { expectedRevision: 0, missionId, type: 'manual', constraints, ...definition },
          })
        ).status,
      ).toBe(200);
      return { missionId, triggerId };
    }

    const fire = async (triggerId: string) => {
      const fired = await t.request({
        method: 'POST',
        url: `/v1/triggers/${triggerId}/occurrences`,
        key: newKey(),
        body: { input: { run: ++n } },
      });
      expect(fired.status).toBe(202);
      return fired.body.occurrenceId as string;
    };
    const decisionOf = async (occurrenceId: string) => {
      const [decided] = (await t.infra.store.readStream(occurrenceStream(occurrenceId))).filter(
        (e) => e.type !== 'OccurrenceObserved',
      );
      return decided!.data as { executionId?: string; reason?: string; evidence?: Record<string, unknown> };
    };
    /** Fires, admits and returns the new execution's id. */
    const admitted = async (triggerId: string) => {
      const occurrenceId = await fire(triggerId);
      await admit();
      const decided = await decisionOf(occurrenceId);
      expect(decided.reason).toBeUndefined();
      return decided.executionId!;
    };
    const post = (executionId: string, action: string, body: unknown, options: { key?: string; token?: string } = {}) =>
      t.request({
        method: 'POST',
        url: `/v1/executions/${executionId}/${action}`,
        key: options.key ?? newKey(),
        body,
        token: options.token,
      });

    it('EX-1 EX-2 a claim returns the fence and the request; a second claim is already_claimed', async () => {
      const { triggerId, missionId } = await setup();
      const occurrenceId = await fire(triggerId);
      await admit();
      const { executionId } = await decisionOf(occurrenceId);
      const claim = await post(executionId!, 'claim', { consumerId: 'worker-1' });
      expect(claim.status).toBe(200);
      expect(claim.body).toMatchObject({
        executionId,
        fence: 1,
        generation: 1,
        occurrenceId,
        triggerId,
        triggerRevision: 1,
        missionId,
        input: { run: expect.any(Number) },
        scheduledAt: null,
        firedAt: expect.any(String),
      });
      const again = await post(executionId!, 'claim', { consumerId: 'worker-2' });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('already_claimed');
    });

    it('EX-2 twenty consumers racing for one execution: exactly one claim wins', async () => {
      const { triggerId } = await setup();
      const executionId = await admitted(triggerId);
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => post(executionId, 'claim', { consumerId: `racer-${i}` })),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      expect(answers.filter((a) => a.status === 409).every((a) => a.body.code === 'already_claimed')).toBe(true);
      const claims = (
        await t.sql.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM events WHERE type = 'ExecutionClaimed' AND data->>'executionId' = $1`,
          [executionId],
        )
      ).rows[0]!.n;
      expect(claims).toBe(1);
    });

    it("EX-2 completion needs the claim's fence; a completed execution cannot be claimed again", async () => {
      const { triggerId } = await setup();
      const executionId = await admitted(triggerId);
      const unclaimed = await post(executionId, 'complete', { fence: 1, outcome: 'succeeded' });
      expect([unclaimed.status, unclaimed.body.code]).toEqual([409, 'fence_mismatch']);
      const { fence } = (await post(executionId, 'claim', { consumerId: 'w' })).body;
      const stale = await post(executionId, 'complete', { fence: fence + 1, outcome: 'succeeded' });
      expect([stale.status, stale.body.code]).toEqual([409, 'fence_mismatch']);
      const done = await post(executionId, 'complete', { fence, outcome: 'succeeded', receipt: { commit: 'abc' } });
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({ executionId, status: 'completed', outcome: 'succeeded', fence });
      const reclaim = await post(executionId, 'claim', { consumerId: 'late' });
      expect([reclaim.status, reclaim.body.code]).toEqual([409, 'execution_completed']);
      // The holder's repeat (its answer lost, no Idempotency-Key kept) is 200 only with what it first said
      const repeat = await post(executionId, 'complete', { fence, outcome: 'succeeded', receipt: { commit: 'abc' } });
      expect(repeat.status).toBe(200);
      for (const receipt of [{ commit: 'def' }, [1, 2], null]) {
        const other = await post(executionId, 'complete', { fence, outcome: 'succeeded', receipt });
        expect([JSON.stringify(receipt), other.status, other.body.code]).toEqual([
          JSON.stringify(receipt),
          409,
          'execution_completed',
        ]);
      }
      const settled = await post(executionId, 'settle', { settlementId: 's-1' });
      expect(settled.body).toMatchObject({ decision: 'committed', receipt: { commit: 'abc' } });
    });

    it('EX-2 a completion whose error is not an object (an array, a string) is 400 at /error, and the claim stays open', async () => {
      const { triggerId } = await setup();
      const executionId = await admitted(triggerId);
      const { fence } = (await post(executionId, 'claim', { consumerId: 'w' })).body;
      for (const error of [[], 'boom', [{ code: 'x', message: 'y' }]]) {
        const refused = await post(executionId, 'complete', { fence, outcome: 'failed', error });
        expect([JSON.stringify(error), refused.status, refused.body.code]).toEqual([
          JSON.stringify(error),
          400,
          'BAD_REQUEST',
        ]);
        expect(refused.body.errors.map((e: { pointer: string }) => e.pointer)).toContain('/error');
      }
      const done = await post(executionId, 'complete', {
        fence,
        outcome: 'failed',
        error: { code: 'x', message: 'y' },
      });
      expect(done.status).toBe(200);
    });

    it('EX-3 settling an uncertain claim installs a noncommit tombstone; a late completion is execution_noncommitted', async () => {
      const { triggerId } = await setup();
      const executionId = await admitted(triggerId);
      const { fence } = (await post(executionId, 'claim', { consumerId: 'crashed' })).body;
      const settled = await post(executionId, 'settle', { settlementId: 's-1' });
      expect(settled.status).toBe(200);
      expect(settled.body).toMatchObject({ executionId, decision: 'noncommitted' });
      const late = await post(executionId, 'complete', { fence, outcome: 'succeeded' });
      expect([late.status, late.body.code]).toEqual([409, 'execution_noncommitted']);
      const again = await post(executionId, 'settle', { settlementId: 's-2' });
      expect(again.body).toMatchObject({ decision: 'noncommitted' });
    });

    /** Another writer of the same log (a second process, say): its transitions are unknown to this process. */
    const elsewhere = async (executionId: string, command: Record<string, unknown>) => {
      const [first] = await t.infra.store.readStream(executionStream(executionId));
      const tenant = first!.metadata.tenant as string;
      const other = new SqlEventStore(t.sql);
      return transitionExecution(
        other,
        tenant,
        { executionId, at: new Date().toISOString(), ...command } as ExecutionCommand,
        { tenant, actor: 'elsewhere', correlationId: `c-${executionId}` },
      );
    };

    it("EX-2 EX-3 a completion after this process's own claim still loses to a settlement written elsewhere meanwhile", async () => {
      const { triggerId } = await setup();
      const executionId = await admitted(triggerId);
      const { fence } = (await post(executionId, 'claim', { consumerId: 'worker-1' })).body;
      await elsewhere(executionId, { type: 'SettleExecution', settlementId: 's-elsewhere' });
      const late = await post(executionId, 'complete', { fence, outcome: 'succeeded' });
      expect([late.status, late.body.code]).toEqual([409, 'execution_noncommitted']);
      const types = (await t.infra.store.readStream(executionStream(executionId))).map((e) => e.type);
      expect(types).toEqual(['ExecutionClaimed', 'ExecutionSettled']);
    });

    it('EX-2 a claim refused by what this process last wrote is decided again from the log: recovered elsewhere, it is claimed', async () => {
      const { triggerId } = await setup();
      const executionId = await admitted(triggerId);
      expect((await post(executionId, 'claim', { consumerId: 'worker-1' })).status).toBe(200);
      await elsewhere(executionId, { type: 'SettleExecution', settlementId: 's-elsewhere' });
      await elsewhere(executionId, {
        type: 'RecoverExecution',
        actor: 'operator',
        reason: 'crashed worker',
        idempotencyKey: newKey(),
        refusal: null,
      });
      const again = await post(executionId, 'claim', { consumerId: 'worker-2' });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ executionId, generation: 2, fence: 2 });
      const completed = await post(executionId, 'complete', { fence: 2, outcome: 'succeeded' });
      expect([completed.status, completed.body.status]).toEqual([200, 'completed']);
    });

    it('EX-3 a settlement losing the race to completion returns committed with the receipt exactly as completed', async () => {
      const { triggerId } = await setup();
      const executionId = await admitted(triggerId);
      const { fence } = (await post(executionId, 'claim', { consumerId: 'w' })).body;
      expect(
        (await post(executionId, 'complete', { fence, outcome: 'failed', receipt: { error: 'timeout' } })).status,
      ).toBe(200);
      const settled = await post(executionId, 'settle', { settlementId: 's-1' });
      expect(settled.status).toBe(200);
      expect(settled.body).toEqual({
        executionId,
        decision: 'committed',
        receipt: { error: 'timeout' },
        completion: { fence, outcome: 'failed', completedAt: expect.any(String) },
        position: expect.any(Number),
      });

      // A completion without a receipt settles with none.
      const bare = await admitted(triggerId);
      const claimed = (await post(bare, 'claim', { consumerId: 'w' })).body;
      expect((await post(bare, 'complete', { fence: claimed.fence, outcome: 'succeeded' })).status).toBe(200);
      const settledBare = await post(bare, 'settle', { settlementId: 's-2' });
      expect(settledBare.body).toMatchObject({ decision: 'committed', receipt: null });
    });

    it('EX-3 completion and settlement racing: exactly one of them decides, and both answers agree', async () => {
      const { triggerId } = await setup();
      for (let round = 0; round < 5; round++) {
        const executionId = await admitted(triggerId);
        const { fence } = (await post(executionId, 'claim', { consumerId: 'w' })).body;
        const [completed, settled] = await Promise.all([
          post(executionId, 'complete', { fence, outcome: 'succeeded' }),
          post(executionId, 'settle', { settlementId: `s-${round}` }),
        ]);
        if (completed.status === 200) expect(settled.body.decision).toBe('committed');
        else expect([completed.body.code, settled.body.decision]).toEqual(['execution_noncommitted', 'noncommitted']);
        const terminal = (
          await t.sql.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM events WHERE type IN ('ExecutionCompleted', 'ExecutionSettled') AND data->>'executionId' = $1`,
            [executionId],
          )
        ).rows[0]!.n;
        expect(terminal).toBe(1);
      }
    });

    it('AD-2 onConcurrencyLimit block: a Mission at its limit blocks with concurrency_limit until an execution ends', async () => {
      const { triggerId, missionId } = await setup({ maxConcurrent: 1 }, { onConcurrencyLimit: 'block' });
      const first = await admitted(triggerId);
      const blockedId = await fire(triggerId);
      await admit();
      expect(await decisionOf(blockedId)).toMatchObject({
        reason: 'concurrency_limit',
        evidence: { active: 1, limit: 1 },
      });
      // A blocked Occurrence requested nothing: the id its execution would have had leads nowhere.
      expect((await post(`x-${blockedId}`, 'claim', { consumerId: 'w' })).status).toBe(404);

      const { fence } = (await post(first, 'claim', { consumerId: 'w' })).body;
      expect((await post(first, 'complete', { fence, outcome: 'succeeded' })).status).toBe(200);
      const second = await admitted(triggerId);
      // A noncommit settlement ends the execution too, and gives its slot back.
      expect((await post(second, 'settle', { settlementId: 'give-up' })).body.decision).toBe('noncommitted');
      await admitted(triggerId);

      const slots = (await missionSlotEvents(t.infra.store, 'tenant-a', missionId)).map((e) => [e.type, e.running]);
      expect(slots).toEqual([
        ['ExecutionSlotsTaken', 1],
        ['ExecutionSlotReleased', 0],
        ['ExecutionSlotsTaken', 1],
        ['ExecutionSlotReleased', 0],
        ['ExecutionSlotsTaken', 1],
      ]);
    });

    it('BA-3 overlap skip: a fire while an earlier execution is not terminal is blocked overlap_skip naming it, until it ends', async () => {
      const { triggerId } = await setup({}, {}, { overlap: 'skip' });
      const first = await admitted(triggerId);
      const skipped = await fire(triggerId);
      await admit();
      expect(await decisionOf(skipped)).toMatchObject({
        reason: 'overlap_skip',
        evidence: { triggerId, overlap: 'skip', runningExecutionId: first },
      });
      // Claimed is still running.
      const { fence } = (await post(first, 'claim', { consumerId: 'w' })).body;
      const stillSkipped = await fire(triggerId);
      await admit();
      expect((await decisionOf(stillSkipped)).reason).toBe('overlap_skip');

      expect((await post(first, 'complete', { fence, outcome: 'failed' })).status).toBe(200);
      const third = await admitted(triggerId);
      // A noncommit settlement, even before any claim, ends it too.
      expect((await post(third, 'settle', { settlementId: 'give-up' })).body.decision).toBe('noncommitted');
      const fourth = await admitted(triggerId);

      const markers = (await t.infra.store.readStream(overlapStream('tenant-a', triggerId))).map((e) => [
        e.type,
        (e.data as { executionId: string }).executionId,
      ]);
      expect(markers).toEqual([
        ['TriggerExecutionStarted', first],
        ['TriggerExecutionEnded', first],
        ['TriggerExecutionStarted', third],
        ['TriggerExecutionEnded', third],
        ['TriggerExecutionStarted', fourth],
      ]);
    });

    it('BA-3 AD-5 overlap skip: a backlog decided together admits only the first, in acceptance order', async () => {
      const { triggerId } = await setup({}, {}, { overlap: 'skip' });
      const fired = [];
      for (let i = 0; i < 3; i++) fired.push(await fire(triggerId));
      await admit();
      const decided = await Promise.all(fired.map(decisionOf));
      expect(decided.map((d) => d.reason ?? 'admitted')).toEqual(['admitted', 'overlap_skip', 'overlap_skip']);
      expect(decided[2]!.evidence).toMatchObject({ runningExecutionId: decided[0]!.executionId });
      const markers = await t.infra.store.readStream(overlapStream('tenant-a', triggerId));
      expect(markers.map((e) => e.type)).toEqual(['TriggerExecutionStarted']);
    });

    it('BA-3 overlap skip: two admitters racing for one Trigger serialize on its marker, exactly one admits', async () => {
      const { triggerId } = await setup({}, {}, { overlap: 'skip' });
      const bus = t.app.get(CommandBus);
      for (let round = 0; round < 3; round++) {
        const fired = [await fire(triggerId), await fire(triggerId)];
        const answers = await Promise.all(
          fired.map((id) => bus.execute(new AdmitOccurrenceCommand(occurrenceStream(id)))),
        );
        expect(answers.map((a) => a.decision).sort()).toEqual(['admitted', 'blocked']);
        const decided = await Promise.all(fired.map(decisionOf));
        const winner = decided.find((d) => d.executionId)!.executionId!;
        expect(decided.find((d) => d.reason)).toMatchObject({
          reason: 'overlap_skip',
          evidence: { runningExecutionId: winner },
        });
        expect((await post(winner, 'settle', { settlementId: `r-${round}` })).body.decision).toBe('noncommitted');
      }
    });

    it('BA-3 overlap allow (the default): fires while one runs are all admitted, and no marker is kept', async () => {
      const { triggerId } = await setup();
      const first = await admitted(triggerId);
      await post(first, 'claim', { consumerId: 'w' });
      const fired = [await fire(triggerId), await fire(triggerId)];
      await admit();
      const decided = await Promise.all(fired.map(decisionOf));
      expect(decided.map((d) => d.reason ?? 'admitted')).toEqual(['admitted', 'admitted']);
      expect(await t.infra.store.readStream(overlapStream('tenant-a', triggerId))).toEqual([]);
    });

    it('AD-2 AD-5 onConcurrencyLimit block: a backlog decided together takes slots in acceptance order, one event per slot stripe', async () => {
      const { triggerId, missionId } = await setup({ maxConcurrent: 2 }, { onConcurrencyLimit: 'block' });
      const fired = [];
      for (let i = 0; i < 4; i++) fired.push(await fire(triggerId));
      await admit();
      const decided = await Promise.all(fired.map(decisionOf));
      expect(decided.map((d) => d.reason ?? 'admitted')).toEqual([
        'admitted',
        'admitted',
        'concurrency_limit',
        'concurrency_limit',
      ]);
      // maxConcurrent 2: stripes 0 and 1 hold one slot each, taken first to last.
      const slots = await missionSlotEvents(t.infra.store, 'tenant-a', missionId);
      expect(slots).toEqual([
        { type: 'ExecutionSlotsTaken', stripe: 0, executionIds: [decided[0]!.executionId], running: 1 },
        { type: 'ExecutionSlotsTaken', stripe: 1, executionIds: [decided[1]!.executionId], running: 2 },
      ]);
    });

    it('AD-2 by default over maxConcurrent every fire is admitted; a claim takes the slot, over the limit 409 concurrency_limit', async () => {
      const { triggerId, missionId } = await setup({ maxConcurrent: 2 });
      const fired = [];
      for (let i = 0; i < 3; i++) fired.push(await fire(triggerId));
      await admit();
      const decided = await Promise.all(fired.map(decisionOf));
      expect(decided.map((d) => d.reason ?? 'admitted')).toEqual(['admitted', 'admitted', 'admitted']);
      const [first, second, third] = decided.map((d) => d.executionId!);
      expect(await missionSlotEvents(t.infra.store, 'tenant-a', missionId)).toEqual([]);

      const { fence } = (await post(first!, 'claim', { consumerId: 'w-1' })).body;
      expect((await post(second!, 'claim', { consumerId: 'w-2' })).status).toBe(200);
      const over = await post(third!, 'claim', { consumerId: 'w-3' });
      expect([over.status, over.body.code]).toEqual([409, 'concurrency_limit']);
      // Refused claims write nothing: the third is still pending, and claimable once a slot frees up.
      expect(await t.infra.store.readStream(executionStream(third!))).toEqual([]);
      expect((await post(first!, 'complete', { fence, outcome: 'succeeded' })).status).toBe(200);
      expect((await post(third!, 'claim', { consumerId: 'w-3' })).status).toBe(200);

      const slots = (await missionSlotEvents(t.infra.store, 'tenant-a', missionId)).map((e) => [e.type, e.running]);
      expect(slots).toEqual([
        ['ExecutionSlotsTaken', 1],
        ['ExecutionSlotsTaken', 2],
        ['ExecutionSlotReleased', 1],
        ['ExecutionSlotsTaken', 2],
      ]);
    });

    it('AD-2 a queued execution settled before any claim held no slot and gives none back', async () => {
      const { triggerId, missionId } = await setup({ maxConcurrent: 1 });
      const unclaimed = await admitted(triggerId);
      expect((await post(unclaimed, 'settle', { settlementId: 'never-ran' })).body.decision).toBe('noncommitted');
      expect(await missionSlotEvents(t.infra.store, 'tenant-a', missionId)).toEqual([]);
      const next = await admitted(triggerId);
      expect((await post(next, 'claim', { consumerId: 'w' })).status).toBe(200);
    });

    it('EX-1 an execution id leads back to its Occurrence; ids Reveille never handed out are 404', async () => {
      const { triggerId } = await setup();
      const occurrenceId = await fire(triggerId);
      // Observed but not admitted yet: there is no execution to claim.
      expect((await post(`x-${occurrenceId}`, 'claim', { consumerId: 'early' })).status).toBe(404);
      await admit();
      expect((await decisionOf(occurrenceId)).executionId).toBe(`x-${occurrenceId}`);
      expect((await post(`x-${'0'.repeat(64)}`, 'claim', { consumerId: 'w' })).status).toBe(404);
      expect((await post(`x-${occurrenceId}`, 'claim', { consumerId: 'w' })).status).toBe(200);
    });

    it("SEC-1 another tenant's execution does not exist for the caller; claims need executions:write", async () => {
      const { triggerId } = await setup();
      const executionId = await admitted(triggerId);
      const foreign = await post(
        executionId,
        'claim',
        { consumerId: 'intruder' },
        { token: await t.token({ tenant: 'tenant-b' }) },
      );
      expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
      const unscoped = await post(
        executionId,
        'claim',
        { consumerId: 'reader' },
        { token: await t.token({ scope: 'operator:read' }) },
      );
      expect(unscoped.status).toBe(403);
      const invalid = await post(executionId, 'complete', { fence: 'one', outcome: 'maybe' });
      expect(invalid.status).toBe(400);
      expect((await post('no-such-execution', 'claim', { consumerId: 'w' })).status).toBe(404);
      // Nothing of the above touched the execution: it can still be claimed.
      expect((await post(executionId, 'claim', { consumerId: 'owner' })).status).toBe(200);
    });

    it('SEC-3 a retried claim with the same Idempotency-Key replays the same fence instead of failing', async () => {
      const { triggerId } = await setup();
      const executionId = await admitted(triggerId);
      const key = newKey();
      const first = await post(executionId, 'claim', { consumerId: 'w' }, { key });
      const retry = await post(executionId, 'claim', { consumerId: 'w' }, { key });
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotency-replayed']).toBe('true');
      expect(retry.body.fence).toBe(first.body.fence);
    });

    it("OP-1 an operator reads an execution's state and history", async () => {
      const { triggerId, missionId } = await setup();
      const executionId = await admitted(triggerId);
      const { fence } = (await post(executionId, 'claim', { consumerId: 'w-7' })).body;
      const claimed = await t.request({ method: 'GET', url: `/v1/operator/executions/${executionId}` });
      expect(claimed.status).toBe(200);
      expect(claimed.body).toMatchObject({
        executionId,
        status: 'claimed',
        fence,
        claim: { consumerId: 'w-7' },
        missionId,
        triggerId,
      });
      await post(executionId, 'complete', { fence, outcome: 'succeeded', receipt: { ok: true } });
      const done = (await t.request({ method: 'GET', url: `/v1/operator/executions/${executionId}` })).body;
      expect(done).toMatchObject({ status: 'completed', completion: { outcome: 'succeeded', receipt: { ok: true } } });
      expect(done.history.map((h: { type: string }) => h.type)).toEqual(['ExecutionClaimed', 'ExecutionCompleted']);
      expect(done).not.toHaveProperty('input');
    });
  });
}
