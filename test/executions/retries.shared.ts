import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { RecordedEvent } from '../../src/domain/ports/event-store.js';
import { executionStream } from '../../src/domain/shared/ids.js';
import { DeliveryTimers } from '../../src/adapters/delivery-timers/delivery-timers.js';
import { advanceDelivery } from '../../src/commands/delivery-timers/advance-delivery.js';
import { dropSchema } from '../support/databases.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The timers look at least this often; the read model folds within ~100 ms of an append. */
const POLL_MS = 100;
const ENV = { REVEILLE_DELIVERY_POLL_MS: String(POLL_MS) };

export async function until<T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** One test's Mission, Trigger (with its delivery block) and a way to fire, claim and complete its executions. */
export function retryFixture(get: () => TestApp) {
  let n = 0;
  const suffix = randomBytes(3).toString('hex');
  const post = (url: string, body: unknown) => get().request({ method: 'POST', url, key: newKey(), body });

  async function setup(
    delivery: Record<string, unknown>,
    limits: { maxConcurrent?: number } = {},
    definition: Record<string, unknown> = {},
  ) {
    n += 1;
    const missionId = `m-r${suffix}-${n}`;
    const triggerId = `t-r${suffix}-${n}`;
    const grants = missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: limits.maxConcurrent ?? 100 });
    const mission = await get().request({
      method: 'PUT',
      url: `/v1/missions/${missionId}`,
      key: newKey(),
      body: { state: 'active', grants },
    });
    expect(mission.status).toBe(200);
    const trigger = await get().request({
      method: 'PUT',
      url: `/v1/triggers/${triggerId}`,
      key: newKey(),
      body: { expectedRevision: 0, missionId, type: 'manual', delivery, ...definition },
    });
    expect(trigger.status).toBe(200);
    return { missionId, triggerId };
  }

  /** Fires and waits for the admission (the app runs its background tasks). */
  async function admitted(triggerId: string, input: Record<string, unknown> = {}): Promise<string> {
    const fired = await get().request({
      method: 'POST',
      url: `/v1/triggers/${triggerId}/occurrences?wait=decision`,
      key: newKey(),
      body: { input: { run: ++n, ...input } },
    });
    expect([fired.status, fired.body.status]).toEqual([200, 'admitted']);
    return fired.body.executionId as string;
  }

  const claim = (executionId: string, consumerId = 'worker') =>
    post(`/v1/executions/${executionId}/claim`, { consumerId });
  const claimNext = (triggerId: string, waitSeconds = 0, consumerId = 'worker') =>
    post('/v1/executions/claim-next', { consumerId, triggerId, waitSeconds });
  const fail = (executionId: string, fence: number) =>
    post(`/v1/executions/${executionId}/complete`, {
      fence,
      outcome: 'failed',
      retryable: true,
      error: { code: 'downstream', message: 'flaky downstream' },
    });
  const history = async (executionId: string): Promise<RecordedEvent<any>[]> =>
    get().infra.store.readStream(executionStream(executionId));
  const eventOf = async (executionId: string, type: string, nth = 1) =>
    (await history(executionId)).filter((e) => e.type === type)[nth - 1];
  const pendingRow = async (executionId: string) =>
    (
      await get().sql.query<{ claimed: boolean; holds_slot: boolean; next_attempt_at: Date | null }>(
        `SELECT claimed, holds_slot, next_attempt_at FROM rm_pending_executions WHERE execution_id = $1`,
        [executionId],
      )
    ).rows[0];

  return { setup, admitted, claim, claimNext, fail, history, eventOf, pendingRow };
}

/** EX-4 retries, redeliveries and dead letters, driven by the timers of the running app (database clock). */
export function retriesSuite(kind: StoreKind): void {
  describe(`EX-4 delivery timers: retries, redeliveries, dead letters (${kind})`, () => {
    let t: TestApp;
    const f = retryFixture(() => t);

    beforeAll(async () => {
      t = await startTestApp(kind, { env: ENV });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('EX-4 a failed retryable completion is claimable again after its backoff, as generation 2 attempt 2; a claim during the backoff is not_pending', async () => {
      const backoff = 0.6;
      const { triggerId } = await f.setup({
        maxAttempts: 3,
        backoff: { initialSeconds: backoff, multiplier: 2, maxSeconds: 10 },
        claimWithinSeconds: 30,
      });
      const executionId = await f.admitted(triggerId);
      const first = await f.claim(executionId);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ generation: 1, attempt: 1, fence: 1 });

      // The backoff counts from the completion's commit, between sending the fail and its answer arriving.
      const failing = Date.now();
      const failed = await f.fail(executionId, first.body.fence);
      const failedAt = Date.now();
      expect(failed.status).toBe(200);
      expect(failed.body.status).toBe('retrying');

      // During the backoff: neither claim nor claim-next hands it out, and it holds no slot.
      const during = await f.claim(executionId, 'eager');
      expect([during.status, during.body.code]).toEqual([409, 'not_pending']);
      expect((await f.claimNext(triggerId)).status).toBe(204);
      await until(async () => (await f.pendingRow(executionId))?.next_attempt_at, 'the retrying row');
      expect(await f.pendingRow(executionId)).toMatchObject({ claimed: false, holds_slot: false });

      // A long poll gets it as soon as the timer redelivered it.
      const again = await f.claimNext(triggerId, 10, 'second');
      const claimedAt = Date.now();
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ executionId, generation: 2, attempt: 2, fence: 2 });
      // Host-measured: not before the backoff, and within it plus the poll and fold latency.
      expect((claimedAt - failing) / 1000).toBeGreaterThanOrEqual(backoff - 0.05);
      expect((claimedAt - failedAt) / 1000).toBeLessThan(backoff + 2);
      // Database-clock: the redelivery is at or after nextAttemptAt, and soon after it.
      const scheduled = await f.eventOf(executionId, 'ExecutionRetryScheduled');
      const redelivered = await f.eventOf(executionId, 'ExecutionRedelivered');
      expect(redelivered!.data).toMatchObject({ why: 'retry', generation: 2, attempt: 2 });
      const lag = Date.parse(redelivered!.data.at) - Date.parse(scheduled!.data.nextAttemptAt);
      expect(Date.parse(scheduled!.data.nextAttemptAt) - Date.parse(scheduled!.data.at)).toBe(backoff * 1000);
      expect(lag).toBeGreaterThanOrEqual(0);
      expect(lag).toBeLessThan(1500);
      const done = await t.request({
        method: 'POST',
        url: `/v1/executions/${executionId}/complete`,
        key: newKey(),
        body: { fence: 2, outcome: 'succeeded' },
      });
      expect(done.body.status).toBe('completed');
      // Nothing else happens to it: a completed execution has no timers.
      await sleep(backoff * 2000);
      expect((await f.history(executionId)).map((e) => e.type)).toEqual([
        'ExecutionClaimed',
        'ExecutionCompleted',
        'ExecutionRetryScheduled',
        'ExecutionRedelivered',
        'ExecutionClaimed',
        'ExecutionCompleted',
      ]);
      expect(await f.pendingRow(executionId)).toBeUndefined();
    });

    it('EX-4 timers fired at once by several loops (processes) redeliver once: the execution stream decides', async () => {
      const { triggerId } = await f.setup({
        maxAttempts: 3,
        // Long enough that the early call below is early even on a loaded machine (0.3 s was not, once).
        backoff: { initialSeconds: 2, multiplier: 2, maxSeconds: 10 },
        claimWithinSeconds: 30,
      });
      const executionId = await f.admitted(triggerId);
      const { fence } = (await f.claim(executionId)).body;
      expect((await f.fail(executionId, fence)).status).toBe(200);
      // Early: nothing is due, nothing is appended.
      expect(await advanceDelivery(t.infra.store, 'tenant-a', executionId)).toEqual([]);
      const { nextAttemptAt } = (await f.eventOf(executionId, 'ExecutionRetryScheduled'))!.data;
      await sleep(Math.max(0, Date.parse(nextAttemptAt) - Date.now()) + 100);
      const loops = Array.from(
        { length: 4 },
        () => new DeliveryTimers({ store: t.infra.store, sql: t.sql, maxIdleMs: 100 }),
      );
      const fired = await Promise.all([
        ...loops.map((loop) => loop.runOnce()),
        ...Array.from({ length: 4 }, () =>
          advanceDelivery(t.infra.store, 'tenant-a', executionId).then((e) => e.length),
        ),
      ]);
      const redeliveries = (await f.history(executionId)).filter((e) => e.type === 'ExecutionRedelivered');
      expect(redeliveries).toHaveLength(1);
      expect(fired.reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(1);
      // Another tenant's timer call finds nothing of this execution.
      expect(await advanceDelivery(t.infra.store, 'tenant-b', executionId)).toEqual([]);
    });

    it('EX-4 the backoff grows exponentially; the last failed attempt is dead-lettered (failed) and leaves the queue', async () => {
      const { triggerId } = await f.setup({
        maxAttempts: 3,
        backoff: { initialSeconds: 0.2, multiplier: 2, maxSeconds: 10 },
        claimWithinSeconds: 30,
      });
      const executionId = await f.admitted(triggerId);
      for (let attempt = 1; attempt <= 3; attempt++) {
        const claimed = await f.claimNext(triggerId, 10);
        expect(claimed.status).toBe(200);
        expect(claimed.body).toMatchObject({ executionId, generation: attempt, attempt });
        const failed = await f.fail(executionId, claimed.body.fence);
        expect(failed.body.status).toBe(attempt < 3 ? 'retrying' : 'dead_lettered');
      }
      const waits = (await f.history(executionId))
        .filter((e) => e.type === 'ExecutionRetryScheduled')
        .map((e) => Date.parse(e.data.nextAttemptAt) - Date.parse(e.data.at));
      expect(waits).toEqual([200, 400]);
      const dead = await f.eventOf(executionId, 'ExecutionDeadLettered');
      expect(dead!.data).toMatchObject({
        reason: 'failed',
        attempts: 3,
        lastError: { code: 'downstream', message: 'flaky downstream' },
      });
      const reclaim = await f.claim(executionId);
      expect([reclaim.status, reclaim.body.code]).toEqual([409, 'execution_dead_lettered']);
      await until(async () => (await f.pendingRow(executionId)) === undefined, 'the row to leave');
      expect((await f.claimNext(triggerId)).status).toBe(204);
    });

    it('EX-4 an unclaimed delivery is delivered again (same generation, attempt + 1), then dead-lettered (unclaimed)', async () => {
      const { triggerId } = await f.setup({
        maxAttempts: 2,
        backoff: { initialSeconds: 0.2, multiplier: 2, maxSeconds: 10 },
        claimWithinSeconds: 0.3,
      });
      const executionId = await f.admitted(triggerId);
      const dead = await until(() => f.eventOf(executionId, 'ExecutionDeadLettered'), 'the dead letter');
      const events = await f.history(executionId);
      expect(events.map((e) => e.type)).toEqual(['ExecutionRedelivered', 'ExecutionDeadLettered']);
      const [redelivered] = events;
      expect(redelivered!.data).toMatchObject({ why: 'unclaimed', generation: 1, attempt: 2 });
      expect(dead.data).toMatchObject({ reason: 'unclaimed', attempts: 2, generation: 1, attempt: 2 });
      // The second window is the claim window plus the backoff: 0.3 + 0.2 s after the redelivery.
      expect(Date.parse(redelivered!.data.claimBy) - Date.parse(redelivered!.data.at)).toBe(500);
      expect(Date.parse(dead.data.at)).toBeGreaterThanOrEqual(Date.parse(redelivered!.data.claimBy));
      const late = await f.claim(executionId);
      expect([late.status, late.body.code]).toEqual([409, 'execution_dead_lettered']);
      await until(async () => (await f.pendingRow(executionId)) === undefined, 'the row to leave');
    });

    it('AD-2 EX-4 a paused Mission holds its unclaimed work: no redelivery, no dead letter, no attempt spent; resumed, it is claimed', async () => {
      const { triggerId, missionId } = await f.setup({
        maxAttempts: 2,
        backoff: { initialSeconds: 0.2, multiplier: 1, maxSeconds: 1 },
        // Room for the pause to land and fold before the first window ends (a loaded machine took over 0.3 s)
        claimWithinSeconds: 2,
      });
      const executionId = await f.admitted(triggerId);
      const grants = missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: 100 });
      const revise = async (state: string) => {
        const answer = await t.request({
          method: 'PUT',
          url: `/v1/missions/${missionId}`,
          key: newKey(),
          body: { state, grants },
        });
        expect(answer.status).toBe(200);
      };
      await revise('paused');
      // Two claim windows and a backoff: unpaused, it would have been dead-lettered by now
      await sleep(5_000);
      expect((await f.history(executionId)).map((e) => e.type)).toEqual([]);
      await revise('active');
      const claimed = await f.claimNext(triggerId, 5);
      expect([claimed.status, claimed.body.executionId, claimed.body.attempt]).toEqual([200, executionId, 1]);
    });

    it('EX-2 EX-4 completing a dead letter with a fence not the current claim is fence_mismatch (stale or never issued), as api.md lists for complete', async () => {
      const { triggerId } = await f.setup({
        maxAttempts: 2,
        backoff: { initialSeconds: 0.1, multiplier: 1, maxSeconds: 1 },
        claimWithinSeconds: 30,
      });
      const executionId = await f.admitted(triggerId);
      const first = await f.claim(executionId);
      expect((await f.fail(executionId, first.body.fence)).body.status).toBe('retrying');
      const second = await f.claimNext(triggerId, 10);
      expect(second.body).toMatchObject({ executionId, generation: 2 });
      expect((await f.fail(executionId, second.body.fence)).body.status).toBe('dead_lettered');

      const complete = (fence: number, outcome: string) =>
        t.request({
          method: 'POST',
          url: `/v1/executions/${executionId}/complete`,
          key: newKey(),
          body: { fence, outcome },
        });
      const stale = await complete(first.body.fence, 'succeeded');
      expect([stale.status, stale.body.code]).toEqual([409, 'fence_mismatch']);
      // The fence whose failure dead-lettered it: the holder is told its attempt already completed.
      const other = await complete(second.body.fence, 'succeeded');
      expect([other.status, other.body.code]).toEqual([409, 'execution_completed']);
      // The holder repeating its own failure is answered as before, with nothing appended.
      const before = (await f.history(executionId)).length;
      const repeat = await f.fail(executionId, second.body.fence);
      expect([repeat.status, repeat.body.status]).toEqual([200, 'dead_lettered']);
      expect((await f.history(executionId)).length).toBe(before);

      // Dead-lettered unclaimed: fence 1 was never handed out.
      const unclaimedTrigger = await f.setup({ maxAttempts: 1, claimWithinSeconds: 0.2 });
      const unclaimed = await f.admitted(unclaimedTrigger.triggerId);
      await until(() => f.eventOf(unclaimed, 'ExecutionDeadLettered'), 'the dead letter');
      const neverIssued = await t.request({
        method: 'POST',
        url: `/v1/executions/${unclaimed}/complete`,
        key: newKey(),
        body: { fence: 1, outcome: 'succeeded' },
      });
      expect([neverIssued.status, neverIssued.body.code]).toEqual([409, 'fence_mismatch']);
    });

    it('EX-4 a recovered dead letter is queued again and claimable as a new generation (the read model follows RecoveryRequested)', async () => {
      const { triggerId } = await f.setup({
        maxAttempts: 1,
        backoff: { initialSeconds: 0.2, multiplier: 2, maxSeconds: 10 },
        claimWithinSeconds: 30,
      });
      const executionId = await f.admitted(triggerId);
      const { fence } = (await f.claim(executionId)).body;
      expect((await f.fail(executionId, fence)).body.status).toBe('dead_lettered');
      await until(async () => (await f.pendingRow(executionId)) === undefined, 'the row to leave');
      const recovered = await t.request({
        method: 'POST',
        url: `/v1/operator/executions/${executionId}/recover`,
        key: newKey(),
        body: { reason: 'consumer fixed' },
      });
      expect(recovered.status).toBe(202);
      const again = await f.claimNext(triggerId, 5);
      expect(again.status).toBe(200);
      // The failed attempt ran: the recovery starts generation 2, with a fresh budget.
      expect(again.body).toMatchObject({ executionId, generation: 2, attempt: 2, fence: 2 });
      const row = await until(
        async () => (await f.pendingRow(executionId))?.claimed && f.pendingRow(executionId),
        'the fold',
      );
      expect(row).toMatchObject({ claimed: true, holds_slot: true });
    });

    it('EX-4 AD-2 an execution queued behind maxConcurrent spends no attempt while it waits, and gets a whole window once the slot frees', async () => {
      // A window a loaded machine still claims the first execution within (CI once took longer than 0.6 s
      // between its admission and its claim, and found it dead-lettered); it is claimed before the second fire.
      const window = 1.2;
      const { triggerId } = await f.setup(
        { maxAttempts: 1, backoff: { initialSeconds: 0.2, multiplier: 2, maxSeconds: 10 }, claimWithinSeconds: window },
        { maxConcurrent: 1 },
      );
      const running = await f.admitted(triggerId);
      const claimed = await f.claim(running);
      expect(claimed.status).toBe(200);
      const queued = await f.admitted(triggerId);
      // Three claim windows pass while the Mission's only slot is held.
      await sleep(window * 3000);
      expect(await f.history(queued)).toEqual([]);
      expect((await f.claimNext(triggerId)).status).toBe(204);
      // The slot frees: the queued one is claimable, and not dead-lettered at once although its window is long past.
      const done = await t.request({
        method: 'POST',
        url: `/v1/executions/${running}/complete`,
        key: newKey(),
        body: { fence: claimed.body.fence, outcome: 'succeeded' },
      });
      expect(done.status).toBe(200);
      await sleep((window * 1000) / 2);
      expect(await f.history(queued)).toEqual([]);
      const next = await f.claimNext(triggerId, 5);
      expect(next.body).toMatchObject({ executionId: queued, attempt: 1 });
    });

    it('EX-4 AD-5 a retrying lane head holds its resource lane; the execution behind it spends no attempt meanwhile', async () => {
      const { triggerId } = await f.setup(
        // A window a loaded machine still claims the head within, and a backoff longer than it.
        { maxAttempts: 2, backoff: { initialSeconds: 2.5, multiplier: 2, maxSeconds: 10 }, claimWithinSeconds: 1.5 },
        {},
        { queueByPointer: '/repo' },
      );
      const head = await f.admitted(triggerId, { repo: 'api' });
      const behind = await f.admitted(triggerId, { repo: 'api' });
      const first = await f.claim(head);
      expect(first.body.lane).toBe('resource:api');
      expect((await f.fail(head, first.body.fence)).body.status).toBe('retrying');
      // The head waits for its backoff: the lane is still its, so nothing behind it is handed out.
      expect((await f.claimNext(triggerId)).status).toBe(204);
      const again = await f.claimNext(triggerId, 10);
      expect(again.body).toMatchObject({ executionId: head, generation: 2, attempt: 2 });
      expect(
        (
          await t.request({
            method: 'POST',
            url: `/v1/executions/${head}/complete`,
            key: newKey(),
            body: { fence: again.body.fence, outcome: 'succeeded' },
          })
        ).status,
      ).toBe(200);
      // Its claim window ran out long ago, but it was never claimable: first delivery, first attempt.
      expect(await f.history(behind)).toEqual([]);
      const next = await f.claimNext(triggerId, 5);
      expect(next.body).toMatchObject({ executionId: behind, generation: 1, attempt: 1 });
    });

    it('EX-4 AD-2 a queued execution nobody claims after the slot frees is dead-lettered one window later', async () => {
      const window = 1.2; // long enough for a loaded machine to claim the running one before its own window ends
      const { triggerId } = await f.setup(
        { maxAttempts: 1, backoff: { initialSeconds: 0.2, multiplier: 2, maxSeconds: 10 }, claimWithinSeconds: window },
        { maxConcurrent: 1 },
      );
      const running = await f.admitted(triggerId);
      const queued = await f.admitted(triggerId);
      const claimed = await f.claim(running);
      await sleep(window * 2000);
      const done = await t.request({
        method: 'POST',
        url: `/v1/executions/${running}/complete`,
        key: newKey(),
        body: { fence: claimed.body.fence, outcome: 'succeeded' },
      });
      expect(done.status).toBe(200);
      const freedAt = Date.parse((await f.eventOf(running, 'ExecutionCompleted'))!.data.at);
      const dead = await until(() => f.eventOf(queued, 'ExecutionDeadLettered'), 'the dead letter');
      expect(dead.data).toMatchObject({ reason: 'unclaimed', attempts: 1 });
      expect(Date.parse(dead.data.at) - freedAt).toBeGreaterThanOrEqual(window * 1000);
    });
  });
}

/** EX-4: the timers are the log's: an app started again on the same database fires the retry the last one scheduled. */
export function timersSurviveRestartSuite(kind: StoreKind): void {
  describe(`EX-4 delivery timers across a restart (${kind})`, () => {
    it('EX-4 a retry scheduled before a restart is redelivered by the next app on the same database', async () => {
      const database = kind === 'postgres' ? `t_${randomBytes(6).toString('hex')}` : mkdtempSync(join(tmpdir(), 'rv-'));
      let t = await startTestApp(kind, { env: ENV, database });
      const f = retryFixture(() => t);
      try {
        const { triggerId } = await f.setup({
          maxAttempts: 3,
          backoff: { initialSeconds: 1.5, multiplier: 2, maxSeconds: 10 },
          claimWithinSeconds: 30,
        });
        const executionId = await f.admitted(triggerId);
        const { fence } = (await f.claim(executionId)).body;
        expect((await f.fail(executionId, fence)).body.status).toBe('retrying');
        await t.close();
        t = await startTestApp(kind, { env: ENV, database });
        const again = await f.claimNext(triggerId, 10);
        expect(again.status).toBe(200);
        expect(again.body).toMatchObject({ executionId, generation: 2, attempt: 2 });
        const redelivered = await f.eventOf(executionId, 'ExecutionRedelivered');
        expect(redelivered!.metadata.actor).toBe('reveille:delivery-timers');
      } finally {
        await t.close();
        if (kind === 'postgres') await dropSchema(database);
      }
    });
  });
}
