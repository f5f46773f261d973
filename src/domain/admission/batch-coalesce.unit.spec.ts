import type { BatchClosed, BatchEvent } from '../batch/batch-events.js';
import { addMilliseconds } from '../batch/batch.js';
import type { CoalesceEvent, CoalesceGroupClosed } from '../coalescing/index.js';
import { executionIdFor } from '../execution/execution.js';
import type { OccurrenceEvent } from '../occurrence/occurrence-events.js';
import { evolveOccurrence, joinOccurrenceBatch, type OccurrenceState } from '../occurrence/occurrence.js';
import { IllegalStateError } from '../shared/errors.js';
import { counted } from './admit-in-order.fixtures.js';
import { CoalesceBatchWorld } from './batch-coalesce.fixtures.js';
import { budgetDecider, initialBudgetState } from './budget.js';

const T0 = '2026-03-01T10:00:00.000Z';
/** Ten per batch, or a minute after its first member; every Occurrence in the one default partition. */
const POLICY = { size: 10, maxWaitMs: 60_000, partitionPointer: null };
const sample = (host: string, n: number) => ({ type: 'health.sample', host, n });
const revoke = (host: string, n: number) => ({ type: 'health.sample', host, n, action: 'revoke' });

/** Given a Trigger that coalesces health samples per host (1 s) and batches, with Occurrences accepted 100 ms apart. */
function given(inputs: readonly unknown[], limits?: { maxExecutionsPerHour: number; maxConcurrent: number }) {
  const world = new CoalesceBatchWorld(POLICY, T0, limits);
  const streams = inputs.map((input, n) => {
    world.clock = addMilliseconds(T0, 100 * n);
    return world.observe(`k-${n}`, input);
  });
  return { world, streams, ids: streams.map((s) => world.idOf(s)) };
}

const typesOf = (world: CoalesceBatchWorld, streamId: string) =>
  world.events<OccurrenceEvent>(streamId).map((e) => e.type);
const eventOf = <T extends OccurrenceEvent['type']>(world: CoalesceBatchWorld, streamId: string, type: T) =>
  world.events<OccurrenceEvent>(streamId).find((e): e is Extract<OccurrenceEvent, { type: T }> => e.type === type);
const closedGroups = (world: CoalesceBatchWorld) =>
  [...world.streams]
    .filter(([s]) => s.startsWith('coalesce-'))
    .flatMap(([, events]) =>
      (events as CoalesceEvent[]).filter((e): e is CoalesceGroupClosed => e.type === 'CoalesceGroupClosed'),
    )
    .map((e) => e.data);
const batchEvents = (world: CoalesceBatchWorld) => world.partitions().flatMap((p) => world.events<BatchEvent>(p));

describe('BA-1 DD-5 a Trigger that coalesces and batches: coalescing first, batching second', () => {
  describe('given a flood of samples from two hosts admitted as they come', () => {
    const flood = () => {
      const g = given([sample('h1', 0), sample('h1', 1), sample('h2', 2), sample('h1', 3), sample('h2', 4)]);
      for (const s of g.streams) expect(g.world.commit(g.world.admission([s]))).toBe(true);
      return g;
    };

    it('BA-1 DD-5 when admitted, every sample waits in its group and nothing joins a batch yet', () => {
      const { world, streams } = flood();
      for (const s of streams) expect(typesOf(world, s)).toEqual(['OccurrenceObserved', 'OccurrenceHeldForCoalescing']);
      expect(world.partitions()).toEqual([]);
    });

    it("BA-1 DD-5 when the windows pass (timers:coalesce), each group's last member joins the batch standing for its group; the others are coalesced into it", () => {
      const { world, streams, ids } = flood();
      world.clock = addMilliseconds(T0, 1500);
      expect(world.closeDueGroups()).toBe(true);
      // h1: 0, 1, 3 → 3 stands for them; h2: 2, 4 → 4.
      for (const [member, into] of [
        [0, 3],
        [1, 3],
        [2, 4],
      ] as const)
        expect(eventOf(world, streams[member]!, 'OccurrenceCoalesced')?.data).toMatchObject({
          reason: 'coalesced',
          evidence: { coalescedInto: ids[into] },
        });
      expect(eventOf(world, streams[3]!, 'OccurrenceBatchJoined')?.data).toMatchObject({
        coalesced: [ids[0], ids[1], ids[3]],
      });
      expect(eventOf(world, streams[4]!, 'OccurrenceBatchJoined')?.data).toMatchObject({ coalesced: [ids[2], ids[4]] });
      // Joined, not decided: no representative is admitted alone, and no execution exists yet.
      for (const s of [streams[3]!, streams[4]!])
        expect(typesOf(world, s)).toEqual([
          'OccurrenceObserved',
          'OccurrenceHeldForCoalescing',
          'OccurrenceBatchJoined',
        ]);
      expect(closedGroups(world).map((g) => [g.representative, g.decision])).toEqual(
        expect.arrayContaining([
          [ids[3], 'batched'],
          [ids[4], 'batched'],
        ]),
      );
      expect(
        batchEvents(world)
          .filter((e) => e.type === 'BatchMemberAdded')
          .map((e) => e.data.occurrenceId),
      ).toEqual(expect.arrayContaining([ids[3], ids[4]]));
      expect(world.budget.consumed).toBe(0);
    });

    it("BA-1 DD-5 EX-1 when the batch's maxWait passes, its close admits one execution: the representatives in the order their groups closed (not the order they joined), each batched", () => {
      const { world, streams, ids } = flood();
      world.clock = addMilliseconds(T0, 1500);
      // The later window's group happens to close first (racing timers): order comes from the closes' instants.
      expect(world.commit(world.admission([streams[2]!]))).toBe(true);
      expect(world.commit(world.admission([streams[0]!]))).toBe(true);
      expect(batchEvents(world).flatMap((e) => (e.type === 'BatchMemberAdded' ? [e.data.occurrenceId] : []))).toEqual([
        ids[4],
        ids[3],
      ]);
      // The batch opened with the first join (h2's group, closed at 1200 ms): maxWait counts from there, never earlier.
      world.clock = addMilliseconds(T0, 1200 + 60_000 - 1);
      expect(world.batchClose(world.partitions()[0]!)).toBeNull();
      world.clock = addMilliseconds(T0, 1200 + 60_000);
      const [partition] = world.partitions();
      expect(world.commit(world.batchClose(partition!)!)).toBe(true);
      const closed = batchEvents(world).filter((e): e is BatchClosed => e.type === 'BatchClosed');
      expect(closed).toHaveLength(1);
      const executionId = executionIdFor(ids[3]!);
      expect(closed[0]!.data).toMatchObject({
        cause: 'max_wait',
        members: [ids[3], ids[4]],
        outcome: 'admitted',
        executionId,
      });
      const request = eventOf(world, streams[3]!, 'OccurrenceBatched')?.data.request;
      expect(request?.members).toEqual([ids[3], ids[4]]);
      expect(request?.input).toEqual({ members: [sample('h1', 3), sample('h2', 4)] });
      expect(eventOf(world, streams[4]!, 'OccurrenceBatched')?.data).toMatchObject({ executionId });
      expect(eventOf(world, streams[4]!, 'OccurrenceBatched')?.data.request).toBeUndefined();
      // No coalesced Occurrence is batched, and the one execution was counted once.
      for (const s of [streams[0]!, streams[1]!, streams[2]!])
        expect(typesOf(world, s)).toEqual(['OccurrenceObserved', 'OccurrenceHeldForCoalescing', 'OccurrenceCoalesced']);
      expect(world.budget.consumed).toBe(1);
    });
  });

  it('CA-1 CA-3 OP-2 given a group whose causal child joined before a root representative, when the group joins its batch and the batch closes, then the execution carries the child’s chain and the representative names its group', () => {
    const chain = {
      parentId: 'op-a',
      depth: 1,
      ancestry: [
        { occurrenceId: 'o-a', triggerId: 't-a' },
        { operationId: 'op-a', triggerId: 't-a' },
      ],
    };
    const world = new CoalesceBatchWorld(POLICY, T0);
    const child = world.observe('k-child', sample('h1', 0), chain);
    world.clock = addMilliseconds(T0, 100);
    const root = world.observe('k-root', sample('h1', 1));
    expect(world.commit(world.admission([child, root]))).toBe(true);
    world.clock = addMilliseconds(T0, 1500);
    expect(world.closeDueGroups()).toBe(true);
    expect(eventOf(world, root, 'OccurrenceBatchJoined')?.data.causal).toEqual(chain);
    world.clock = addMilliseconds(T0, 1000 + 60_000);
    expect(world.commit(world.batchClose(world.partitions()[0]!)!)).toBe(true);
    const batched = eventOf(world, root, 'OccurrenceBatched')!.data;
    expect(batched.request).toMatchObject({ ancestry: chain.ancestry, depth: 1, members: [world.idOf(root)] });
    expect(batched.coalesced).toEqual([world.idOf(child), world.idOf(root)]);
  });

  it('BA-1 DD-5 a neverCoalesce Occurrence amid a flood joins the batch at once, ahead of the group it is not part of', () => {
    const { world, streams, ids } = given([sample('h1', 0), revoke('h1', 1), sample('h1', 2)]);
    expect(world.commit(world.admission(streams))).toBe(true);
    expect(typesOf(world, streams[1]!)).toEqual(['OccurrenceObserved', 'OccurrenceBatchJoined']);
    expect(eventOf(world, streams[1]!, 'OccurrenceBatchJoined')?.data.coalesced).toBeUndefined();
    world.clock = addMilliseconds(T0, 1000);
    expect(world.closeDueGroups()).toBe(true);
    world.clock = addMilliseconds(T0, 100 + 60_000);
    expect(world.commit(world.batchClose(world.partitions()[0]!)!)).toBe(true);
    const closed = batchEvents(world).find((e): e is BatchClosed => e.type === 'BatchClosed')!;
    expect(closed.data.members).toEqual([ids[1], ids[2]]);
    expect(eventOf(world, streams[0]!, 'OccurrenceCoalesced')?.data.evidence).toMatchObject({ coalescedInto: ids[2] });
  });

  it("BA-1 DD-5 a batch that fills with a group's representative closes in the same write that closes the group", () => {
    const world = new CoalesceBatchWorld({ size: 2, maxWaitMs: null, partitionPointer: null }, T0);
    const direct = world.observe('k-0', { type: 'deploy', n: 0 });
    world.clock = addMilliseconds(T0, 100);
    const first = world.observe('k-1', sample('h1', 1));
    world.clock = addMilliseconds(T0, 200);
    const last = world.observe('k-2', sample('h1', 2));
    expect(world.commit(world.admission([direct, first, last]))).toBe(true);
    world.clock = addMilliseconds(T0, 1200);
    // The timer presents the group's first member; its representative is read for the close and fills the batch.
    expect(world.commit(world.admission([first]))).toBe(true);
    expect(typesOf(world, last)).toEqual([
      'OccurrenceObserved',
      'OccurrenceHeldForCoalescing',
      'OccurrenceBatchJoined',
      'OccurrenceBatched',
    ]);
    expect(eventOf(world, direct, 'OccurrenceBatched')?.data.request?.members).toEqual([
      world.idOf(direct),
      world.idOf(last),
    ]);
    expect(typesOf(world, first)).toEqual(['OccurrenceObserved', 'OccurrenceHeldForCoalescing', 'OccurrenceCoalesced']);
  });

  it('BA-1 DD-5 AD-2 a representative the whole policy blocks (budget spent) is decided blocked with its members and joins no batch', () => {
    const { world, streams, ids } = given([sample('h1', 0), sample('h1', 1)], {
      maxExecutionsPerHour: 60,
      maxConcurrent: 10,
    });
    expect(world.commit(world.admission(streams))).toBe(true);
    world.budget = counted(60).reduce(budgetDecider.evolve, initialBudgetState);
    world.clock = addMilliseconds(T0, 1000);
    expect(world.closeDueGroups()).toBe(true);
    expect(eventOf(world, streams[1]!, 'OccurrenceBlocked')?.data).toMatchObject({
      reason: 'budget_exhausted',
      evidence: { members: ids },
    });
    expect(eventOf(world, streams[0]!, 'OccurrenceCoalesced')?.data.evidence).toMatchObject({ coalescedInto: ids[1] });
    expect(closedGroups(world).map((g) => g.decision)).toEqual(['blocked']);
    expect(world.partitions()).toEqual([]);
    expect(typesOf(world, streams[1]!)).not.toContain('OccurrenceBatchJoined');
  });
});

describe("BA-1 DD-5 the Occurrence decider: only a closed group's representative leaves its group for a batch", () => {
  const { world, streams, ids } = given([sample('h1', 0), sample('h1', 1)]);
  world.commit(world.admission(streams));
  const held = world.occurrence(streams[1]!) as Extract<OccurrenceState, { status: 'observed' }>;
  const join = { type: 'JoinBatch' as const, occurrenceId: ids[1]!, batchId: 'b-1', batchStreamId: 'batch-x', at: T0 };

  it('BA-1 DD-5 a held Occurrence joining without its group, or as another than its last member, is a bug', () => {
    expect(() => joinOccurrenceBatch(join, held)).toThrow(IllegalStateError);
    expect(() => joinOccurrenceBatch({ ...join, coalesced: [ids[1]!, ids[0]!] }, held)).toThrow(IllegalStateError);
  });

  it("BA-1 DD-5 as its group's last member it joins once, leaving the group; the same batch again is []", () => {
    const events = joinOccurrenceBatch({ ...join, coalesced: [ids[0]!, ids[1]!] }, held);
    const { type: _type, ...data } = join;
    expect(events).toEqual([{ type: 'OccurrenceBatchJoined', data: { ...data, coalesced: ids } }]);
    const after = events.reduce(evolveOccurrence, held as OccurrenceState);
    expect(after).toMatchObject({ status: 'observed', batch: { batchId: 'b-1', streamId: 'batch-x' } });
    expect((after as typeof held).held).toBeUndefined();
    expect(joinOccurrenceBatch({ ...join, coalesced: [ids[0]!, ids[1]!] }, after)).toEqual([]);
  });

  it('BA-1 an un-held Occurrence never claims to stand for a group', () => {
    const alone = { ...held, held: undefined };
    expect(() => joinOccurrenceBatch({ ...join, coalesced: [ids[1]!] }, alone)).toThrow(IllegalStateError);
    expect(joinOccurrenceBatch(join, alone)).toHaveLength(1);
  });
});
