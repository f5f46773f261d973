import type { ExecutionEvent } from '../../src/domain/execution/index.js';
import type { OccurrenceAdmitted } from '../../src/domain/occurrence/occurrence-events.js';
import { pendingExecutionsProjection } from '../../src/projections/pending-executions/pending-executions.projection.js';
import {
  claimableExecutions,
  dueDeliveries,
} from '../../src/projections/pending-executions/pending-executions.queries.js';
import { admittedEvent, appendExecutionEvent, appendOccurrence, occurrence } from './fixtures.js';
import { crashingRunner, type DbKind, openHarness, type ProjectionHarness } from './harness.js';

const at = (second: number) => `2026-03-01T10:00:${String(second).padStart(2, '0')}.000Z`;
const E = { code: 'boom', message: 'failed' };

/** One lifecycle event of `executionId` on Trigger t-1 of acme, as the command side would write it. */
const lifecycle =
  (executionId: string) =>
  <T extends ExecutionEvent['type']>(
    type: T,
    life: { generation: number; attempt: number; at: string },
    data: Record<string, unknown> = {},
  ) =>
    ({ type, data: { tenant: 'acme', missionId: 'm-1', triggerId: 't-1', executionId, ...life, ...data } }) as Extract<
      ExecutionEvent,
      { type: T }
    >;

type Row = {
  execution_id: string;
  claimed: boolean;
  holds_slot: boolean;
  claim_by: string | null;
  next_attempt_at: string | null;
  position: number;
};

/**
 * EX-4 on the claimable read model: a retry keeps its row but is neither claimable nor holding a slot, a
 * redelivery offers it again, a dead letter removes it, a recovery queues it again at its own position; the
 * timers' columns follow. A rebuild, and a crash in the middle of one, land on the same rows (OP-3). The
 * fixture's times are long past by the database clock, so every timer here is due.
 */
describe.each<DbKind>(['postgres', 'pglite'])('EX-4 pending-executions read model (%s)', (kind) => {
  let h: ProjectionHarness;
  const append = (event: ExecutionEvent) => appendExecutionEvent(h.store, 'acme', event);
  const rows = async (): Promise<Record<string, Row>> => {
    const { rows } = await h.sql.query<Row>(
      `SELECT execution_id, claimed, holds_slot, position::int AS position,
              to_char(claim_by AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS claim_by,
              to_char(next_attempt_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS next_attempt_at
       FROM rm_pending_executions`,
    );
    return Object.fromEntries(rows.map((r) => [r.execution_id, r]));
  };
  const e1 = lifecycle('e-1');

  beforeAll(async () => {
    h = await openHarness(kind, [pendingExecutionsProjection]);
    // Mission m-1 runs one execution at a time (the fixture's maxConcurrent is 1).
    for (const n of [1, 2, 3]) {
      const o = occurrence({ triggerId: 't-1', key: `k-${n}`, observedAt: at(n) });
      const admitted = admittedEvent(o, `e-${n}`, at(n));
      // Queued admission (the default): the claim takes the slot.
      (admitted.data as OccurrenceAdmitted['data']).request.slotTakenAt = 'claim';
      await appendOccurrence(h.store, o, admitted);
    }
    await append(e1('ExecutionClaimed', { generation: 1, attempt: 1, at: at(10) }, { fence: 1, consumerId: 'w' }));
    const failed = { fence: 1, outcome: 'failed', retryable: true, error: E, receipt: null };
    await append(e1('ExecutionCompleted', { generation: 1, attempt: 1, at: at(11) }, failed));
    await append(e1('ExecutionRetryScheduled', { generation: 1, attempt: 1, at: at(11) }, { nextAttemptAt: at(12) }));
    await h.catchUp();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('EX-4 a retrying execution keeps its row without a slot, is not claimable, and is due at next_attempt_at', async () => {
    const now = await rows();
    expect(now['e-1']).toMatchObject({ claimed: false, holds_slot: false, claim_by: null, next_attempt_at: at(12) });
    // The default claim window (60 s) from each admission's decision.
    expect(now['e-2']).toMatchObject({ claimed: false, holds_slot: false, claim_by: '2026-03-01T10:01:02.000Z' });
    // The slot is free again, so the next one in acceptance order is claimable; the retry is not.
    expect((await claimableExecutions(h.sql, 'acme', {}, 10)).map((c) => c.executionId)).toEqual(['e-2', 'e-3']);
    expect((await dueDeliveries(h.sql, 10)).map((d) => d.executionId)).toEqual(['e-1', 'e-2', 'e-3']);
  });

  it('EX-4 AD-2 a delivery queued behind the full Mission is not due; once freed it waits a whole window', async () => {
    const e2 = lifecycle('e-2');
    await append(e2('ExecutionClaimed', { generation: 1, attempt: 1, at: at(20) }, { fence: 1, consumerId: 'w' }));
    await h.catchUp();
    expect((await dueDeliveries(h.sql, 10)).map((d) => d.executionId)).toEqual(['e-1']);
    expect(await claimableExecutions(h.sql, 'acme', {}, 10)).toEqual([]);
    // e-2 settles: e-3, long past its window, is claimable again, and due a whole window after the free (long past too).
    await append(
      e2(
        'ExecutionSettled',
        { generation: 1, attempt: 1, at: at(21) },
        { settlementId: 's', decision: 'noncommitted', fence: 1 },
      ),
    );
    await h.catchUp();
    expect((await claimableExecutions(h.sql, 'acme', {}, 10)).map((c) => c.executionId)).toEqual(['e-3']);
    expect((await dueDeliveries(h.sql, 10)).map((d) => d.executionId)).toEqual(['e-1', 'e-3']);
    const { rows: frees } = await h.sql.query(`SELECT scope FROM rm_pending_frees`);
    expect(frees).toEqual([{ scope: 'mission:m-1' }]);
  });

  it('EX-4 a redelivery offers it again, a dead letter removes it, a recovery queues it at its own position', async () => {
    await append(
      e1(
        'ExecutionRedelivered',
        { generation: 2, attempt: 2, at: at(30) },
        { why: 'retry', lane: 'default', claimBy: at(40) },
      ),
    );
    await h.catchUp();
    expect((await rows())['e-1']).toMatchObject({ claimed: false, claim_by: at(40), next_attempt_at: null });
    expect((await claimableExecutions(h.sql, 'acme', {}, 10)).map((c) => c.executionId)).toEqual(['e-1', 'e-3']);
    await append(
      e1(
        'ExecutionDeadLettered',
        { generation: 2, attempt: 2, at: at(41) },
        { reason: 'unclaimed', attempts: 2, lastError: E },
      ),
    );
    await h.catchUp();
    expect((await rows())['e-1']).toBeUndefined();
    const recovery = { actor: 'ops', reason: 'fixed', idempotencyKey: 'k', lane: 'default', claimBy: at(55) };
    const position = await append(
      e1(
        'RecoveryRequested',
        { generation: 2, attempt: 3, at: at(50) },
        { ...recovery, from: 'dead_lettered', maxConcurrent: 1 },
      ),
    );
    await h.catchUp();
    expect((await rows())['e-1']).toMatchObject({ position, claimed: false, holds_slot: false, claim_by: at(55) });
    // Behind e-3 now: acceptance order is the recovery's.
    expect((await claimableExecutions(h.sql, 'acme', {}, 10)).map((c) => c.executionId)).toEqual(['e-3', 'e-1']);
  });

  describe('OP-3 replays', () => {
    it('a crash in the middle of a rebuild, then the rebuild, lands on the same rows', async () => {
      const before = await h.dump(pendingExecutionsProjection);
      for (const crashAt of [4, 7]) {
        await expect(crashingRunner(h, pendingExecutionsProjection, crashAt).rebuild()).rejects.toThrow(
          'simulated crash',
        );
        await h.runners[0]!.rebuild();
        expect(await h.dump(pendingExecutionsProjection)).toEqual(before);
      }
    });
  });
});
