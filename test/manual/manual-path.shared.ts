import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { AdmitOccurrenceCommand } from '../../src/commands/admit-occurrence/admit-occurrence.command.js';
import { AdmitOccurrenceHandler } from '../../src/commands/admit-occurrence/admit-occurrence.handler.js';
import { DecisionNotifier } from '../../src/commands/admit-occurrence/decision-notifier.js';
import { TrustedClock } from '../../src/commands/shared/trusted-clock.js';
import { occurrenceStream } from '../../src/domain/shared/ids.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';

const grants = missionGrants({ maxExecutionsPerHour: 100, maxConcurrent: 1000 });

export function manualPathSuite(kind: StoreKind): void {
  describe(`manual path end to end (${kind})`, () => {
    let t: TestApp;
    let n = 0;
    const admit = () => t.app.get(AdmissionProcessor).subscription.catchUp();

    beforeAll(async () => {
      // The admission processor is driven by hand, so a test can change state between observation and decision.
      t = await startTestApp(kind, { autostart: false });
    });
    afterAll(async () => {
      await t?.close();
    });

    async function setup(options: { mission?: Partial<typeof grants>; trigger?: Record<string, unknown> } = {}) {
      n += 1;
      const missionId = `m-${n}`;
      const triggerId = `t-${n}`;
      const m = await t.request({
        method: 'PUT',
        url: `/v1/missions/${missionId}`,
        key: newKey(),
        body: { state: 'active', grants: { ...grants, ...options.mission } },
      });
      expect(m.status).toBe(200);
      const tr = await t.request({
        method: 'PUT',
        url: `/v1/triggers/${triggerId}`,
        key: newKey(),
        body: { expectedRevision: 0, missionId, type: 'manual', ...options.trigger },
      });
      expect(tr.status).toBe(200);
      return { missionId, triggerId };
    }

    const fire = (triggerId: string, key = newKey(), input: unknown = { n: 1 }) =>
      t.request({
        method: 'POST',
        url: `/v1/triggers/${triggerId}/occurrences`,
        key,
        body: { input, resourceRefs: ['repo:acme/api'] },
      });

    /**
     * Under load another suite's open transaction on the shared server can hold back what readAll passes (the
     * visibility horizon is the server's), and the processor would then meet a backlog in two pages: wait until
     * every observation of it is readable, so "one write" is about admission, not about the neighbours.
     */
    const backlogReadable = async (accepted: readonly { occurrenceId: string; position: number }[]) => {
      const after = Math.min(...accepted.map((o) => o.position)) - 1;
      const wanted = new Set(accepted.map((o) => occurrenceStream(o.occurrenceId)));
      const deadline = Date.now() + 30_000;
      for (;;) {
        const page = await t.infra.store.readAll({ after, maxCount: 1000 });
        if ([...wanted].every((streamId) => page.some((e) => e.streamId === streamId))) return;
        if (Date.now() > deadline) throw new Error('the backlog never became readable as one page');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };

    /** Budget units counted for a Mission, in order, whether counted one by one or by a batch. */
    const budgetUnits = async (missionId: string) => {
      const { rows } = await t.sql.query<{
        type: string;
        data: {
          occurrenceId: string;
          executionId: string;
          units?: Array<{ occurrenceId: string; executionId: string }>;
        };
      }>(
        `SELECT type, data FROM events WHERE type IN ('BudgetConsumed', 'BudgetUnitsConsumed') AND data->>'missionId' = $1 ORDER BY position`,
        [missionId],
      );
      return rows.flatMap((r) => (r.type === 'BudgetUnitsConsumed' ? r.data.units! : [r.data]));
    };

    const observedCount = async () =>
      (await t.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE type = 'OccurrenceObserved'`))
        .rows[0]!.n;

    const decision = async (occurrenceId: string) => {
      const events = await t.infra.store.readStream(occurrenceStream(occurrenceId));
      return events.filter((e) => e.type === 'OccurrenceAdmitted' || e.type === 'OccurrenceBlocked');
    };

    it('EX-1 AD-1 a manual fire is observed, then admitted with exactly one execution request', async () => {
      const { triggerId, missionId } = await setup();
      const fired = await fire(triggerId);
      expect(fired.status).toBe(202);
      expect(fired.body).toMatchObject({
        occurrenceId: expect.stringMatching(/^[0-9a-f]{64}$/),
        status: 'observed',
        position: expect.any(Number),
      });
      await admit();
      const [decided, ...more] = await decision(fired.body.occurrenceId);
      expect(more).toHaveLength(0);
      expect(decided!.type).toBe('OccurrenceAdmitted');
      expect(decided!.data).toMatchObject({
        request: {
          missionId,
          triggerId,
          triggerRevision: 1,
          input: { n: 1 },
          resourceRefs: ['repo:acme/api'],
          lane: `trigger:${triggerId}`,
        },
      });
    });

    it('SEC-3 OC-3 the same key twice is one occurrence and one request; a new key is a second one', async () => {
      const { triggerId } = await setup();
      const key = newKey();
      const first = await fire(triggerId, key);
      const retry = await fire(triggerId, key);
      expect(retry.headers['idempotency-replayed']).toBe('true');
      expect(retry.body.occurrenceId).toBe(first.body.occurrenceId);
      const second = await fire(triggerId);
      expect(second.body.occurrenceId).not.toBe(first.body.occurrenceId);
      await admit();
      expect(await decision(first.body.occurrenceId)).toHaveLength(1);
      expect(await decision(second.body.occurrenceId)).toHaveLength(1);
    });

    it('OC-3 after the key record is gone, the same key still resolves to the same occurrence (no second request)', async () => {
      const { triggerId } = await setup();
      const key = newKey();
      const first = await fire(triggerId, key);
      await t.sql.query('DELETE FROM idempotency_keys WHERE key = $1', [key]);
      const again = await fire(triggerId, key);
      expect(again.status).toBe(202);
      expect(again.body.occurrenceId).toBe(first.body.occurrenceId);
      await t.sql.query('DELETE FROM idempotency_keys WHERE key = $1', [key]);
      const conflicting = await fire(triggerId, key, { n: 2 });
      expect(conflicting.status).toBe(409);
      expect(conflicting.body.code).toBe('payload_conflict');
      await admit();
      expect(await decision(first.body.occurrenceId)).toHaveLength(1);
    });

    it('AD-2 a Trigger disabled after observation but before admission blocks with trigger_disabled', async () => {
      const { triggerId } = await setup();
      const fired = await fire(triggerId);
      expect(
        (
          await t.request({
            method: 'POST',
            url: `/v1/triggers/${triggerId}/disable`,
            key: newKey(),
            body: { reason: 'maintenance' },
          })
        ).status,
      ).toBe(200);
      await admit();
      const [decided] = await decision(fired.body.occurrenceId);
      expect(decided).toMatchObject({ type: 'OccurrenceBlocked', data: { reason: 'trigger_disabled' } });
    });

    it.each([
      ['cancelled', 'mission_cancelled'],
      ['revoked', 'mission_revoked'],
      ['paused', 'mission_paused'],
    ])('AD-2 a queued occurrence never wakes a %s Mission', async (state, reason) => {
      const { triggerId, missionId } = await setup();
      const fired = await fire(triggerId);
      expect(
        (await t.request({ method: 'PUT', url: `/v1/missions/${missionId}`, key: newKey(), body: { state, grants } }))
          .status,
      ).toBe(200);
      await admit();
      const decided = await decision(fired.body.occurrenceId);
      expect(decided).toHaveLength(1);
      expect(decided[0]).toMatchObject({ type: 'OccurrenceBlocked', data: { reason } });
    });

    it('AD-2 TR-4 a superseded revision blocks with revision_superseded unless the new revision accepts older ones', async () => {
      const { triggerId, missionId } = await setup();
      const stale = await fire(triggerId);
      await t.request({
        method: 'PUT',
        url: `/v1/triggers/${triggerId}`,
        key: newKey(),
        body: { missionId, type: 'manual', reason: 'tighten', constraints: { maxConcurrent: 1 } },
      });
      await admit();
      expect((await decision(stale.body.occurrenceId))[0]).toMatchObject({
        type: 'OccurrenceBlocked',
        data: { reason: 'revision_superseded' },
      });

      const older = await fire(triggerId);
      await t.request({
        method: 'PUT',
        url: `/v1/triggers/${triggerId}`,
        key: newKey(),
        body: { missionId, type: 'manual', acceptOlderRevisions: true },
      });
      await admit();
      const [decided] = await decision(older.body.occurrenceId);
      expect(decided).toMatchObject({ type: 'OccurrenceAdmitted', data: { request: { triggerRevision: 2 } } });
    });

    it('TR-2 AD-2 a manual fire whose resourceRefs hold a glob or a "." / ".." segment is 400 BAD_REQUEST naming each; nothing is observed', async () => {
      const { triggerId } = await setup();
      const refs = ['repo:acme/api', 'repo:acme/../evil', 'repo:acme/*', 'repo:acme/./x', 'repo:acme/a..b'];
      const refused = await t.request({
        method: 'POST',
        url: `/v1/triggers/${triggerId}/occurrences`,
        key: newKey(),
        body: { input: {}, resourceRefs: refs },
      });
      expect([refused.status, refused.body.code]).toEqual([400, 'BAD_REQUEST']);
      expect(refused.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual([
        '/resourceRefs/1',
        '/resourceRefs/2',
        '/resourceRefs/3',
      ]);
      const observed = await t.sql.query(
        `SELECT count(*)::int AS n FROM events WHERE type = 'OccurrenceObserved' AND data->>'triggerId' = $1`,
        [triggerId],
      );
      expect(observed.rows[0]).toEqual({ n: 0 });
    });

    it('TR-2 a Trigger asking for more than its Mission grants is 422 authority_widening', async () => {
      const { missionId } = await setup();
      const response = await t.request({
        method: 'PUT',
        url: '/v1/triggers/t-wide',
        key: newKey(),
        body: {
          missionId,
          type: 'manual',
          constraints: { maxExecutionsPerHour: 1000, resourceScopes: ['repo:other/*'], acceptLowerTrust: true },
        },
      });
      expect(response.status).toBe(422);
      expect(response.body.code).toBe('authority_widening');
      expect(response.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(
        expect.arrayContaining(['/constraints/maxExecutionsPerHour', '/constraints/acceptLowerTrust']),
      );
    });

    it('CP-1 DD-4 a dedupe window on a manual Trigger is accepted because the deployment claims wf.dedupe-windows', async () => {
      // the refusal of an unclaimed entry is tested against a withholding deployment in test/triggers/capabilities
      const { missionId } = await setup();
      const response = await t.request({
        method: 'PUT',
        url: '/v1/triggers/t-dedupe-window',
        key: newKey(),
        body: { missionId, type: 'manual', dedupe: { windowSeconds: 3600 } },
      });
      expect(response.status).toBe(200);
      const claimed = (await t.request({ method: 'GET', url: '/v1/capabilities' })).body.capabilities;
      expect(claimed).toEqual(expect.arrayContaining(['wf.manual-initiation', 'wf.dedupe-windows']));
      const read = await t.request({ method: 'GET', url: '/v1/triggers/t-dedupe-window' });
      expect(read.status).toBe(200);
      expect(read.body.dedupe).toMatchObject({ windowSeconds: 3600 });
    });

    it('CP-1 GET /v1/capabilities validates ?minPosition as every read does (400 at ?minPosition), and is never stale', async () => {
      for (const minPosition of ['abc', '-1', '1.5']) {
        const refused = await t.request({ method: 'GET', url: `/v1/capabilities?minPosition=${minPosition}` });
        expect([minPosition, refused.status, refused.body.code]).toEqual([minPosition, 400, 'BAD_REQUEST']);
        expect(refused.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['?minPosition']);
      }
      // The list is the deployment's configuration, not log state: no position makes it fresher, so none is waited for.
      const started = Date.now();
      const far = await t.request({ method: 'GET', url: '/v1/capabilities?minPosition=999999999' });
      expect([far.status, far.body.stale]).toEqual([200, undefined]);
      expect(Date.now() - started).toBeLessThan(1_500);
    });

    it('AD-2 budget exhaustion blocks with budget_exhausted once the Mission hour is used up', async () => {
      const { triggerId } = await setup({ mission: { maxExecutionsPerHour: 2 } });
      const fired = [await fire(triggerId), await fire(triggerId), await fire(triggerId)];
      await admit();
      const outcomes = await Promise.all(fired.map(async (f) => (await decision(f.body.occurrenceId))[0]!));
      expect(outcomes.filter((o) => o.type === 'OccurrenceAdmitted')).toHaveLength(2);
      expect(
        outcomes.filter((o) => o.type === 'OccurrenceBlocked').map((o) => (o.data as { reason: string }).reason),
      ).toEqual(['budget_exhausted']);
    });

    it('AD-2 AD-5 a Mission backlog admitted together counts the budget in acceptance order, once per admission', async () => {
      const { triggerId, missionId } = await setup({ mission: { maxExecutionsPerHour: 2 } });
      const fired = [];
      for (let i = 0; i < 5; i++) fired.push(await fire(triggerId));
      await admit();
      const outcomes = await Promise.all(fired.map(async (f) => (await decision(f.body.occurrenceId))[0]!));
      expect(outcomes.map((o) => o.type)).toEqual([
        'OccurrenceAdmitted',
        'OccurrenceAdmitted',
        'OccurrenceBlocked',
        'OccurrenceBlocked',
        'OccurrenceBlocked',
      ]);
      const budget = await budgetUnits(missionId);
      expect(budget.map((b) => b.occurrenceId)).toEqual(fired.slice(0, 2).map((f) => f.body.occurrenceId));
      expect(budget.map((b) => b.executionId)).toEqual(
        outcomes.slice(0, 2).map((o) => (o.data as { executionId: string }).executionId),
      );
      // Counted together: one budget event for the batch, not one per admission.
      const rows = (
        await t.sql.query<{ type: string }>(
          `SELECT type FROM events WHERE type LIKE 'Budget%' AND data->>'missionId' = $1`,
          [missionId],
        )
      ).rows;
      expect(rows.map((r) => r.type)).toEqual(['BudgetUnitsConsumed']);
    });

    it('AD-2 the budget a batch counted is what the next batch starts from (remembered after the append, never counted twice)', async () => {
      const { triggerId, missionId } = await setup({ mission: { maxExecutionsPerHour: 3 } });
      const first = [await fire(triggerId), await fire(triggerId)];
      await admit();
      const second = [await fire(triggerId), await fire(triggerId)];
      await admit();
      const outcomes = await Promise.all(
        [...first, ...second].map(async (f) => (await decision(f.body.occurrenceId))[0]!.type),
      );
      expect(outcomes).toEqual(['OccurrenceAdmitted', 'OccurrenceAdmitted', 'OccurrenceAdmitted', 'OccurrenceBlocked']);
      expect(await budgetUnits(missionId)).toHaveLength(3);
    });

    it('AD-1 a backlog whose Occurrence was decided meanwhile falls back to one by one: each decided once, the budget counted once', async () => {
      const { triggerId, missionId } = await setup();
      const fired = [];
      for (let i = 0; i < 4; i++) fired.push(await fire(triggerId));
      // Another admitter decides the second one before the processor's batch gets there.
      await t.app
        .get(AdmitOccurrenceHandler)
        .execute(new AdmitOccurrenceCommand(occurrenceStream(fired[1]!.body.occurrenceId)));
      await admit();
      for (const f of fired)
        expect((await t.infra.store.readStream(occurrenceStream(f.body.occurrenceId))).map((e) => e.type)).toEqual([
          'OccurrenceObserved',
          'OccurrenceAdmitted',
        ]);
      expect(await budgetUnits(missionId)).toHaveLength(4);
    });

    it('AD-5 a backlog over several Missions is decided in one write, each Mission counted in its own acceptance order', async () => {
      const a = await setup({ mission: { maxExecutionsPerHour: 2 } });
      const b = await setup({ mission: { maxExecutionsPerHour: 1 } });
      const fired = [];
      for (const { triggerId } of [a, b, a, b, a]) fired.push(await fire(triggerId));
      await backlogReadable(fired.map((f) => f.body as { occurrenceId: string; position: number }));
      await admit();
      const outcomes = await Promise.all(fired.map(async (f) => (await decision(f.body.occurrenceId))[0]!));
      expect(outcomes.map((o) => o.type)).toEqual([
        'OccurrenceAdmitted', // a
        'OccurrenceAdmitted', // b
        'OccurrenceAdmitted', // a
        'OccurrenceBlocked', // b: its Mission's one unit is used
        'OccurrenceBlocked', // a: its Mission's two are
      ]);
      expect((await budgetUnits(a.missionId)).map((u) => u.occurrenceId)).toEqual(
        [fired[0]!, fired[2]!].map((f) => f.body.occurrenceId),
      );
      expect((await budgetUnits(b.missionId)).map((u) => u.occurrenceId)).toEqual([fired[1]!.body.occurrenceId]);
      const { rows } = await t.sql.query<{ writes: number }>(
        `SELECT count(DISTINCT transaction_id)::int AS writes FROM events
          WHERE type IN ('OccurrenceAdmitted', 'OccurrenceBlocked') AND stream_id = ANY($1::text[])`,
        [fired.map((f) => occurrenceStream(f.body.occurrenceId))],
      );
      expect(rows[0]!.writes).toBe(1);
    });

    it('AD-1 AD-5 when one Mission of a backlog moved meanwhile, each Mission is admitted on its own: each decided once, each budget counted once', async () => {
      const a = await setup();
      const b = await setup();
      const fired = [];
      for (const { triggerId } of [a, b, a, b]) fired.push(await fire(triggerId));
      // Another admitter decides one of a's before the processor's batch gets there.
      await t.app
        .get(AdmitOccurrenceHandler)
        .execute(new AdmitOccurrenceCommand(occurrenceStream(fired[2]!.body.occurrenceId)));
      await admit();
      for (const f of fired)
        expect((await t.infra.store.readStream(occurrenceStream(f.body.occurrenceId))).map((e) => e.type)).toEqual([
          'OccurrenceObserved',
          'OccurrenceAdmitted',
        ]);
      expect(await budgetUnits(a.missionId)).toHaveLength(2);
      expect(await budgetUnits(b.missionId)).toHaveLength(2);
    });

    it('AD-1 50 concurrent admitters on one occurrence decide it exactly once', async () => {
      const { triggerId } = await setup();
      const fired = await fire(triggerId);
      const handler = t.app.get(AdmitOccurrenceHandler);
      const results = await Promise.all(
        Array.from({ length: 50 }, () =>
          handler.execute(new AdmitOccurrenceCommand(occurrenceStream(fired.body.occurrenceId))),
        ),
      );
      const events = await t.infra.store.readStream(occurrenceStream(fired.body.occurrenceId));
      expect(events.map((e) => e.type)).toEqual(['OccurrenceObserved', 'OccurrenceAdmitted']);
      const executionIds = new Set(results.map((r) => r.executionId));
      expect(executionIds.size).toBe(1);
      expect(results.filter((r) => r.decision === 'admitted').length).toBeGreaterThanOrEqual(1);
    });

    it('AD-5 200 concurrent fires with distinct keys on unrelated Triggers are all admitted', async () => {
      const triggers = await Promise.all(Array.from({ length: 10 }, () => setup()));
      const fired = await Promise.all(Array.from({ length: 200 }, (_, i) => fire(triggers[i % 10]!.triggerId)));
      fired.forEach((f) => expect(f.status).toBe(202));
      await admit();
      const outcomes = await Promise.all(
        fired.map(async (f) => (await decision(f.body.occurrenceId)).map((e) => e.type)),
      );
      outcomes.forEach((types) => expect(types).toEqual(['OccurrenceAdmitted']));
    });

    it('?wait=decision answers the decision once the processor has made it', async () => {
      const { triggerId } = await setup();
      const processor = t.app.get(AdmissionProcessor).subscription;
      processor.start();
      try {
        const response = await t.request({
          method: 'POST',
          url: `/v1/triggers/${triggerId}/occurrences?wait=decision`,
          key: newKey(),
          body: { input: {} },
        });
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({ status: 'admitted', executionId: expect.any(String), reason: null });
        // The answer is the decision as committed: its event, its position (read-your-writes for read models).
        const [decided] = await decision(response.body.occurrenceId);
        expect(response.body).toMatchObject({
          executionId: (decided!.data as { executionId: string }).executionId,
          position: decided!.position,
        });
      } finally {
        await processor.stop();
      }
    });

    it('?wait=decision answers a blocked decision with its reason', async () => {
      const { triggerId } = await setup();
      await t.request({ method: 'POST', url: `/v1/triggers/${triggerId}/disable`, key: newKey(), body: {} });
      const processor = t.app.get(AdmissionProcessor).subscription;
      processor.start();
      try {
        const response = await t.request({
          method: 'POST',
          url: `/v1/triggers/${triggerId}/occurrences?wait=decision`,
          key: newKey(),
          body: { input: {} },
        });
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({ status: 'blocked', reason: 'trigger_disabled', executionId: null });
        const [decided] = await decision(response.body.occurrenceId);
        expect(decided!.type).toBe('OccurrenceBlocked');
        expect(response.body.position).toBe(decided!.position);
      } finally {
        await processor.stop();
      }
    });

    it('?wait=decision finds a decision made by another process (not heard here) in the Occurrence stream', async () => {
      const { triggerId } = await setup();
      const waiting = t.request({
        method: 'POST',
        url: `/v1/triggers/${triggerId}/occurrences?wait=decision`,
        key: newKey(),
        body: { input: {} },
      });
      // Another process: the same store, its own notifier, so this process hears nothing.
      const elsewhere = new AdmitOccurrenceHandler(t.infra.store, t.app.get(TrustedClock), new DecisionNotifier());
      let observed: string | undefined;
      while (!observed) {
        const { rows } = await t.sql.query<{ stream_id: string }>(
          `SELECT stream_id FROM events WHERE type = 'OccurrenceObserved' AND data->>'triggerId' = $1`,
          [triggerId],
        );
        observed = rows[0]?.stream_id;
        if (!observed) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await elsewhere.execute(new AdmitOccurrenceCommand(observed));
      const response = await waiting;
      expect(response.status).toBe(200);
      const [decided] = await decision(response.body.occurrenceId);
      expect(response.body).toMatchObject({
        status: 'admitted',
        executionId: (decided!.data as { executionId: string }).executionId,
      });
    });

    it('OC-5 an input over 64 KiB as canonical JSON is 400 BAD_REQUEST at /input, and nothing is observed', async () => {
      const { triggerId } = await setup();
      const key = newKey();
      const response = await fire(triggerId, key, { text: 'x'.repeat(64 * 1024) });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        code: 'BAD_REQUEST',
        detail: 'The input is too large.',
        errors: [{ pointer: '/input', message: 'input exceeds 65536 bytes' }],
      });
      const within = await fire(triggerId, key, { text: 'x'.repeat(1024) });
      expect(within.status).toBe(202);
    });

    it('OC-5 an input that is not a JSON object (a string, an array, a number) is 400 BAD_REQUEST at /input, and nothing is observed', async () => {
      const { triggerId } = await setup();
      const observedBefore = await observedCount();
      for (const input of ['x', [1], 5, true]) {
        const key = newKey();
        const refused = await fire(triggerId, key, input);
        expect([JSON.stringify(input), refused.status, refused.body.code]).toEqual([
          JSON.stringify(input),
          400,
          'BAD_REQUEST',
        ]);
        expect(refused.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/input']);
        // A validation 400 stores nothing: the key is free for a corrected request.
        expect((await fire(triggerId, key, { corrected: true })).status).toBe(202);
      }
      expect(await observedCount()).toBe(observedBefore + 4);
    });

    it('answers 404 not_found for a manual fire on an unknown Trigger', async () => {
      const response = await fire('t-does-not-exist');
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    });
  });
}
