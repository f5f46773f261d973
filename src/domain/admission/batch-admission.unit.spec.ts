import { definition, mission, observed, trigger, NOW } from '../occurrence/occurrence.fixtures.js';
import { batchStream, occurrenceStream } from '../shared/ids.js';
import { type BatchPolicy, MAX_BATCH_SIZE } from '../trigger/trigger-blocks.js';
import { initialBatchPartitionState } from '../batch/batch-events.js';
import { admitInOrder } from './admit-in-order.js';
import type { AdmissionView, MissionCounters, ObservedState } from './admission-step.js';
import { budgetWindowStart, initialBudgetState } from './budget.js';
import { counted } from './admit-in-order.fixtures.js';
import { budgetDecider } from './budget.js';
import { initialMissionSlots } from './slot-stripes.js';
import type { SourceState } from '../source/source.js';

const policy: BatchPolicy = { size: 2, maxWaitMs: null, partitionPointer: null };
const batching = (over: Parameters<typeof definition>[0] = {}) =>
  trigger({}, { batch: policy, constraints: definition().constraints, ...over });
const view = (over: Partial<AdmissionView> = {}): AdmissionView => ({
  now: NOW,
  windowStart: budgetWindowStart(NOW),
  mission: mission('active', { maxExecutionsPerHour: 60, maxConcurrent: 10 }),
  triggers: new Map([['t-1', batching()]]),
  // No source read: these deliveries are unverified (a verified member's source is read for its batch's close, WH-3).
  sources: new Map(),
  ...over,
});
const STREAM = batchStream('acme', 't-1', 2, 'null');
const counters = (over: Partial<MissionCounters> = {}): MissionCounters => ({
  budget: initialBudgetState,
  concurrency: initialMissionSlots,
  batches: new Map([[STREAM, initialBatchPartitionState]]),
  ...over,
});
/** Webhook deliveries whose key is not revoked (their source is verified with key k1). */
const delivery = (n: number, input: unknown = { n }): ObservedState => ({
  status: 'observed',
  occurrence: { ...observed({}, `d-${n}`), auth: { state: 'unverified' }, input },
  conflictingDigests: [],
});

describe('BA-1 batch admission (decider)', () => {
  it('BA-1 EX-1 a join that reaches size closes the batch in the same decision: members batched, the request on the first', () => {
    const [a, b] = [delivery(1), delivery(2)];
    const result = admitInOrder([a, b], view(), counters());
    const ids = [a.occurrence.occurrenceId, b.occurrence.occurrenceId];
    expect(result.steps[0]!.decision.map((e) => e.type)).toEqual(['OccurrenceBatchJoined']);
    expect([...result.batches.get(STREAM)!].map((e) => e.type)).toEqual([
      'BatchOpened',
      'BatchMemberAdded',
      'BatchMemberAdded',
      'BatchClosed',
    ]);
    const first = result.memberDecisions.get(ids[0]!)![0]!;
    const second = result.memberDecisions.get(ids[1]!)![0]!;
    expect(first).toMatchObject({
      type: 'OccurrenceBatched',
      data: { executionId: `x-${ids[0]}`, request: { members: ids, input: { members: [{ n: 1 }, { n: 2 }] } } },
    });
    expect(second).toMatchObject({ type: 'OccurrenceBatched', data: { executionId: `x-${ids[0]}` } });
    expect('request' in second.data).toBe(false);
    // One execution, counted once.
    expect(result.budget).toHaveLength(1);
  });

  it('BA-1 AD-2 a batch closing with the budget spent blocks every member budget_exhausted, naming the batch', () => {
    const spent = counted(60).reduce(budgetDecider.evolve, initialBudgetState);
    const [a, b] = [delivery(1), delivery(2)];
    const result = admitInOrder([a, b], view(), counters({ budget: spent }));
    const ids = [a.occurrence.occurrenceId, b.occurrence.occurrenceId];
    for (const [i, s] of [a, b].entries()) {
      const [decision] = result.memberDecisions.get(s.occurrence.occurrenceId)!;
      expect(decision).toMatchObject({ type: 'OccurrenceBlocked', data: { reason: 'budget_exhausted' } });
      // OP-2: `members` is one type everywhere, the batch's ids, on its first member's decision (as when admitted).
      const { evidence } = decision!.data as unknown as { evidence: Record<string, unknown> };
      expect(evidence.members).toEqual(i === 0 ? ids : undefined);
      expect((decision!.data as unknown as { evidence: { batchId: string } }).evidence.batchId).toEqual(
        expect.any(String),
      );
    }
    expect(result.budget).toEqual([]);
  });

  it('BA-1 OC-5 a batch with only maxWaitMs closes at MAX_BATCH_SIZE members (cause size); the next member opens the next batch', () => {
    const waiting = batching({ batch: { size: null, maxWaitMs: 60_000, partitionPointer: null } });
    const deliveries = Array.from({ length: MAX_BATCH_SIZE + 1 }, (_, i) => delivery(i + 1));
    const result = admitInOrder(deliveries, view({ triggers: new Map([['t-1', waiting]]) }), counters());
    const events = [...result.batches.get(STREAM)!];
    const closed = events.filter((e) => e.type === 'BatchClosed');
    expect(closed).toHaveLength(1);
    expect(closed[0]!.data).toMatchObject({ cause: 'size', outcome: 'admitted' });
    expect((closed[0]!.data as { members: string[] }).members).toHaveLength(MAX_BATCH_SIZE);
    expect(events.filter((e) => e.type === 'BatchOpened')).toHaveLength(2);
    const last = deliveries[MAX_BATCH_SIZE]!.occurrence.occurrenceId;
    expect(result.memberDecisions.has(last)).toBe(false);
    expect(events[events.length - 1]).toMatchObject({
      type: 'BatchMemberAdded',
      data: { occurrenceId: last, count: 1 },
    });
  });

  it('BA-1 BA-2 a member whose guard is false is suppressed at once and joins nothing', () => {
    const guarded = batching({ guard: { pointer: '/n', equals: 1 } });
    const result = admitInOrder([delivery(2)], view({ triggers: new Map([['t-1', guarded]]) }), counters());
    expect(result.steps[0]!.decision).toMatchObject([
      { type: 'OccurrenceSuppressed', data: { reason: 'guard_false' } },
    ]);
    expect(result.batches.size).toBe(0);
  });

  it('BA-1 a member joining again (a replayed admission) joins nothing', () => {
    const a = delivery(1);
    const first = admitInOrder([a], view(), counters());
    const again = admitInOrder([a], view(), {
      ...counters(),
      batches: new Map([[STREAM, first.counters.batches!.get(STREAM)!]]),
      batchMembers: first.counters.batchMembers!,
    });
    expect(again.steps[0]!.decision).toEqual([]);
    expect(again.batches.size).toBe(0);
  });

  it('BA-1 WH-3 AD-2 a batch opened by a signed webhook closes in a later admission, which re-checks the member’s key as it stands then', () => {
    const source = { status: 'defined', keys: [{ keyId: 'k1', retired: false }] } as unknown as SourceState;
    const retired = { status: 'defined', keys: [{ keyId: 'k1', retired: true }] } as unknown as SourceState;
    const signed: ObservedState = { status: 'observed', occurrence: observed({}, 'd-signed'), conflictingDigests: [] };
    const first = admitInOrder([signed], view({ sources: new Map([['gh', source]]) }), counters());
    expect(first.steps[0]!.decision.map((e) => e.type)).toEqual(['OccurrenceBatchJoined']);
    const member = { ...first.counters.batchMembers!.get(signed.occurrence.occurrenceId)!, expected: 1 };
    const closeWith = (sources: SourceState) =>
      admitInOrder([delivery(2)], view({ sources: new Map([['gh', sources]]) }), {
        ...counters(),
        batches: first.counters.batches!,
        batchMembers: new Map([[signed.occurrence.occurrenceId, member]]),
      });
    // Given the key still stands, when the batch closes, then every member is batched.
    expect(closeWith(source).memberDecisions.get(signed.occurrence.occurrenceId)).toMatchObject([
      {
        type: 'OccurrenceBatched',
        data: { request: { members: [signed.occurrence.occurrenceId, expect.any(String)] } },
      },
    ]);
    expect(occurrenceStream(member.occurrence.occurrenceId)).toBe(member.streamId);
    // Given the key was retired while the batch was open, when it closes, then that member is blocked key_revoked
    // and the execution runs for the others only (named after the first of them).
    const closed = closeWith(retired);
    const other = [...closed.memberDecisions.keys()].find((id) => id !== signed.occurrence.occurrenceId)!;
    expect(closed.memberDecisions.get(signed.occurrence.occurrenceId)).toMatchObject([
      { type: 'OccurrenceBlocked', data: { reason: 'key_revoked', evidence: { sourceId: 'gh', keyId: 'k1' } } },
    ]);
    expect(closed.memberDecisions.get(other)).toMatchObject([
      { type: 'OccurrenceBatched', data: { executionId: `x-${other}`, request: { members: [other] } } },
    ]);
  });
});
