import type { ExecutionEvent } from '../../src/domain/execution/index.js';
import { occurrenceViews } from '../../src/projections/index.js';
import { executionsProjection } from '../../src/projections/executions/executions.projection.js';
import { listDeadLetters, listExecutions } from '../../src/projections/executions/executions.queries.js';
import { getTriggerHealth } from '../../src/projections/trigger-health/trigger-health.queries.js';
import { triggerHealthProjection } from '../../src/projections/trigger-health/trigger-health.projection.js';
import {
  admittedEvent,
  appendExecutionEvent,
  appendOccurrence,
  appendTrigger,
  occurrence,
  triggerRevised,
} from './fixtures.js';
import { crashingRunner, type DbKind, openHarness, type ProjectionHarness, replayAll } from './harness.js';

const at = (second: number) => `2026-03-01T10:00:${String(second).padStart(2, '0')}.000Z`;
const E1 = { code: 'boom', message: 'first failure' };
const E2 = { code: 'boom', message: 'second failure' };

type Lifecycle = { generation: number; attempt: number; at: string };
/** One lifecycle event of `executionId` on Trigger t-1 of acme, as the command side would write it. */
const lifecycle =
  (executionId: string) =>
  <T extends ExecutionEvent['type']>(type: T, life: Lifecycle, data: Record<string, unknown> = {}) =>
    ({ type, data: { tenant: 'acme', missionId: 'm-1', triggerId: 't-1', executionId, ...life, ...data } }) as Extract<
      ExecutionEvent,
      { type: T }
    >;

/**
 * EX-4 paths the HTTP suites cannot drive yet (timers, recovery): retried, redelivered unclaimed, dead-lettered,
 * recovered. Read models must land where the domain's evolve lands, and replays must change nothing (OP-3).
 */
describe.each<DbKind>(['postgres', 'pglite'])('OP-1 EX-4 executions read model and health counts (%s)', (kind) => {
  let h: ProjectionHarness;

  beforeAll(async () => {
    h = await openHarness(kind, [occurrenceViews, executionsProjection]);
    const { store } = h;
    await appendTrigger(store, 'acme', 't-1', [triggerRevised('acme', 't-1', 1)]);
    for (const n of [1, 2, 3, 4, 5]) {
      const o = occurrence({ triggerId: 't-1', key: `k-${n}`, observedAt: at(n) });
      await appendOccurrence(store, o, admittedEvent(o, `e-${n}`, at(n)));
    }
    const append = (event: ExecutionEvent) => appendExecutionEvent(store, 'acme', event);
    // e-1: failed, retried, failed again, dead-lettered, recovered and claimed once more.
    const e1 = lifecycle('e-1');
    await append(e1('ExecutionClaimed', { generation: 1, attempt: 1, at: at(10) }, { fence: 1, consumerId: 'w' }));
    await append(
      e1(
        'ExecutionCompleted',
        { generation: 1, attempt: 1, at: at(11) },
        {
          fence: 1,
          outcome: 'failed',
          retryable: true,
          error: E1,
          receipt: null,
        },
      ),
    );
    await append(e1('ExecutionRetryScheduled', { generation: 1, attempt: 1, at: at(11) }, { nextAttemptAt: at(12) }));
    await append(
      e1(
        'ExecutionRedelivered',
        { generation: 2, attempt: 2, at: at(12) },
        { why: 'retry', lane: 'default', claimBy: at(40) },
      ),
    );
    await append(e1('ExecutionClaimed', { generation: 2, attempt: 2, at: at(13) }, { fence: 2, consumerId: 'w' }));
    await append(
      e1(
        'ExecutionCompleted',
        { generation: 2, attempt: 2, at: at(14) },
        {
          fence: 2,
          outcome: 'failed',
          retryable: true,
          error: E2,
          receipt: null,
        },
      ),
    );
    await append(
      e1(
        'ExecutionDeadLettered',
        { generation: 2, attempt: 2, at: at(14) },
        { reason: 'failed', attempts: 2, lastError: E2 },
      ),
    );
    const recovery = { actor: 'ops', reason: 'fixed upstream', idempotencyKey: 'k', lane: 'default', claimBy: at(50) };
    await append(
      e1(
        'RecoveryRequested',
        { generation: 3, attempt: 3, at: at(15) },
        { ...recovery, from: 'dead_lettered', maxConcurrent: 1 },
      ),
    );
    await append(e1('ExecutionClaimed', { generation: 3, attempt: 3, at: at(16) }, { fence: 3, consumerId: 'w-3' }));
    // e-2: never claimed, redelivered once, then dead-lettered unclaimed.
    const e2 = lifecycle('e-2');
    await append(
      e2(
        'ExecutionRedelivered',
        { generation: 1, attempt: 2, at: at(20) },
        { why: 'unclaimed', lane: 'default', claimBy: at(30) },
      ),
    );
    await append(
      e2(
        'ExecutionDeadLettered',
        { generation: 1, attempt: 2, at: at(31) },
        { reason: 'unclaimed', attempts: 2, lastError: null },
      ),
    );
    // e-3: claimed, settled noncommitted, recovered: pending again.
    const e3 = lifecycle('e-3');
    await append(e3('ExecutionClaimed', { generation: 1, attempt: 1, at: at(21) }, { fence: 1, consumerId: 'w' }));
    await append(
      e3(
        'ExecutionSettled',
        { generation: 1, attempt: 1, at: at(22) },
        { settlementId: 's', decision: 'noncommitted', fence: 1 },
      ),
    );
    await append(
      e3(
        'RecoveryRequested',
        { generation: 2, attempt: 2, at: at(23) },
        { ...recovery, from: 'noncommitted', maxConcurrent: 1 },
      ),
    );
    // e-4: failed retryable, waiting for its backoff. e-5: only admitted.
    const e4 = lifecycle('e-4');
    await append(e4('ExecutionClaimed', { generation: 1, attempt: 1, at: at(24) }, { fence: 1, consumerId: 'w' }));
    await append(
      e4(
        'ExecutionCompleted',
        { generation: 1, attempt: 1, at: at(25) },
        {
          fence: 1,
          outcome: 'failed',
          retryable: true,
          error: E1,
          receipt: null,
        },
      ),
    );
    await append(e4('ExecutionRetryScheduled', { generation: 1, attempt: 1, at: at(25) }, { nextAttemptAt: at(59) }));
    await h.catchUp();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('EX-4 each execution lands where the lifecycle left it', async () => {
    const { items } = await listExecutions(h.sql, 'acme', { limit: 100 });
    const byId = Object.fromEntries(items.map((row) => [row.executionId, row]));
    expect(items.map((row) => row.executionId)).toEqual(['e-5', 'e-4', 'e-3', 'e-2', 'e-1']);
    expect(byId['e-1']).toMatchObject({
      status: 'claimed',
      generation: 3,
      attempt: 3,
      claim: { consumerId: 'w-3', fence: 3, at: at(16) },
      lastError: E2,
      deadLetter: null,
      completion: { fence: 2, outcome: 'failed', retryable: true, at: at(14) },
    });
    expect(byId['e-2']).toMatchObject({
      status: 'dead_lettered',
      generation: 1,
      attempt: 2,
      claim: null,
      deadLetter: { reason: 'unclaimed', attempts: 2, at: at(31) },
    });
    expect(byId['e-3']).toMatchObject({ status: 'pending', generation: 2, attempt: 2, settlement: null, claim: null });
    expect(byId['e-4']).toMatchObject({ status: 'retrying', nextAttemptAt: at(59), lastError: E1 });
    expect(byId['e-5']).toMatchObject({ status: 'pending', generation: 1, attempt: 1 });
    const dead = await listDeadLetters(h.sql, 'acme', { limit: 100 });
    expect(dead.items).toEqual([
      expect.objectContaining({
        executionId: 'e-2',
        reason: 'unclaimed',
        attempts: 2,
        lastError: null,
        deadLetteredAt: at(31),
      }),
    ]);
    expect((await listExecutions(h.sql, 'globex', { limit: 100 })).items).toEqual([]);
  });

  it('OP-1 the health row counts pending (again), claimed, retrying and dead', async () => {
    const row = await getTriggerHealth(h.sql, 'acme', 't-1');
    expect(row?.executions).toEqual({ pending: 2, claimed: 1, retrying: 1, dead: 1 });
    expect(row?.recovery).toEqual([
      { action: 'recover_dead_letters', method: 'GET', href: '/v1/operator/dead-letters?triggerId=t-1' },
    ]);
  });

  describe('OP-3 replay safety', () => {
    it.each([
      ['executions', executionsProjection],
      ['trigger health', occurrenceViews],
    ] as const)('applying every event of %s a second time changes nothing', async (_, projection) => {
      const before = [await h.dump(executionsProjection), await h.dump(triggerHealthProjection)];
      await replayAll(h, projection);
      expect([await h.dump(executionsProjection), await h.dump(triggerHealthProjection)]).toEqual(before);
    });

    it.each([
      [1, 'executions', executionsProjection, 9],
      [0, 'trigger health', occurrenceViews, 14],
    ] as const)(
      'a crash mid-rebuild (%s: %s) rolls back, and resuming yields identical rows',
      async (index, _, projection, crashAt) => {
        const dump = () => h.dump(projection === occurrenceViews ? triggerHealthProjection : executionsProjection);
        const before = await dump();
        await expect(crashingRunner(h, projection, crashAt).rebuild()).rejects.toThrow('simulated crash');
        expect(await dump()).not.toEqual(before);
        await h.runners[index]!.catchUp();
        expect(await dump()).toEqual(before);
      },
    );

    it('rebuild from position 0 yields identical rows', async () => {
      const before = [await h.dump(executionsProjection), await h.dump(triggerHealthProjection)];
      for (const runner of h.runners) await runner.rebuild();
      expect([await h.dump(executionsProjection), await h.dump(triggerHealthProjection)]).toEqual(before);
    });
  });
});
