import fc from 'fast-check';
import type { BatchClosed, BatchEvent } from '../batch/batch-events.js';
import { addMilliseconds } from '../batch/batch.js';
import type { CoalesceEvent, CoalesceGroupClosed } from '../coalescing/index.js';
import { OCCURRENCE_DECISION_TYPES, type OccurrenceEvent } from '../occurrence/occurrence-events.js';
import type { BatchPolicy } from '../trigger/trigger-blocks.js';
import { CoalesceBatchWorld } from './batch-coalesce.fixtures.js';
import { RULES } from './coalescing.fixtures.js';

const START = '2026-03-01T10:00:00.000Z';
const WINDOW_MS = RULES[0]!.windowMs;

type Kind = 'sample' | 'revoke' | 'other';
type Op =
  | { kind: 'arrive'; host: 'h1' | 'h2'; what: Kind; p: number; dt: number }
  | { kind: 'admit'; count: number }
  | { kind: 'tick'; dt: number }
  /** Both timer loops: due coalescing groups (their first member presented to admission), then due batches. */
  | { kind: 'timers' }
  /** Two processes deciding from one read: an admission and the coalesce timer; at most one of a conflict lands. */
  | { kind: 'race'; count: number }
  /** A crash before the admission processor's checkpoint: its last observations are admitted again. */
  | { kind: 'restart'; replay: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('arrive' as const),
    host: fc.constantFrom<'h1' | 'h2'>('h1', 'h2'),
    what: fc.constantFrom<Kind>('sample', 'sample', 'sample', 'revoke', 'other'),
    p: fc.integer({ min: 0, max: 1 }),
    dt: fc.integer({ min: 0, max: 600 }),
  }),
  fc.record({ kind: fc.constant('admit' as const), count: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('tick' as const), dt: fc.integer({ min: 0, max: 1500 }) }),
  fc.record({ kind: fc.constant('timers' as const) }),
  fc.record({ kind: fc.constant('race' as const), count: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('restart' as const), replay: fc.integer({ min: 1, max: 4 }) }),
);

const policyArb: fc.Arbitrary<BatchPolicy> = fc
  .record({
    size: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
    maxWaitMs: fc.option(fc.integer({ min: 50, max: 2500 }), { nil: null }),
  })
  .filter((p) => p.size !== null || p.maxWaitMs !== null)
  .map((p) => ({ ...p, partitionPointer: '/p' }));

function simulate(policy: BatchPolicy, ops: readonly Op[]) {
  const world = new CoalesceBatchWorld(policy, START);
  const { accepted } = world;
  let admittedUpTo = 0;
  /** The batch closer: every due partition closed by its own timer (two racing closers, one lands). */
  const batchTimer = () => {
    for (const streamId of world.partitions()) {
      const close = world.batchClose(streamId);
      if (!close) continue;
      expect(world.commit(close)).toBe(true);
      expect(world.commit(close)).toBe(false);
    }
  };
  const admit = (streams: readonly string[]) => {
    if (streams.length === 0) return;
    if (world.commit(world.admission(streams))) return;
    // A conflict: decided again one by one from fresh reads (one of the racers landed).
    for (const s of streams) expect(world.commit(world.admission([s]))).toBe(true);
  };

  for (const step of ops) {
    switch (step.kind) {
      case 'arrive': {
        world.clock = addMilliseconds(world.clock, step.dt);
        const n = accepted.length;
        const { host, p } = step;
        const input =
          step.what === 'other'
            ? { type: 'deploy', host, p, n }
            : { type: 'health.sample', host, p, n, ...(step.what === 'revoke' ? { action: 'revoke' } : {}) };
        world.observe(`k-${n}`, input);
        break;
      }
      case 'admit':
        admit(accepted.slice(admittedUpTo, admittedUpTo + step.count));
        admittedUpTo = Math.min(accepted.length, admittedUpTo + step.count);
        break;
      case 'tick':
        world.clock = addMilliseconds(world.clock, step.dt);
        break;
      case 'timers':
        expect(world.closeDueGroups()).toBe(true);
        batchTimer();
        break;
      case 'race': {
        const next = accepted.slice(admittedUpTo, admittedUpTo + step.count);
        const admitting = next.length > 0 ? world.admission(next) : [];
        for (const appends of world.coalesceTimer()) world.commit(appends);
        if (next.length > 0) admit(world.commit(admitting) ? [] : next);
        admittedUpTo = Math.min(accepted.length, admittedUpTo + step.count);
        break;
      }
      case 'restart':
        admit(accepted.slice(Math.max(0, admittedUpTo - step.replay), admittedUpTo));
        break;
    }
  }
  // Everything admitted, every window and deadline passes, both timers run until nothing is due.
  admit(accepted.slice(admittedUpTo));
  for (let round = 0; round < 4; round++) {
    world.clock = addMilliseconds(world.clock, WINDOW_MS + (policy.maxWaitMs ?? 0) + 1);
    expect(world.closeDueGroups()).toBe(true);
    batchTimer();
  }
  return { world, accepted };
}

describe('BA-1 DD-5 coalescing then batching (property, model store, random interleavings, timers, races, restarts)', () => {
  it('BA-1 DD-5 AD-1 every Occurrence decided once, one execution per closed batch, no coalesced Occurrence in a batch', () => {
    fc.assert(
      fc.property(policyArb, fc.array(op, { maxLength: 60 }), (policy, ops) => {
        const { world, accepted } = simulate(policy, ops);
        const eventsOf = (s: string) => world.events<OccurrenceEvent>(s);
        const idOf = (s: string) =>
          (eventsOf(s)[0] as Extract<OccurrenceEvent, { type: 'OccurrenceObserved' }>).data.occurrenceId;
        const streamById = new Map(accepted.map((s) => [idOf(s), s]));
        const order = new Map(accepted.map((s, i) => [idOf(s), i]));
        const partitions = world.partitions();
        const closed = partitions.flatMap((p) =>
          world.events<BatchEvent>(p).filter((e): e is BatchClosed => e.type === 'BatchClosed'),
        );
        const joined = partitions.flatMap((p) =>
          world.events<BatchEvent>(p).flatMap((e) => (e.type === 'BatchMemberAdded' ? [e.data.occurrenceId] : [])),
        );
        // Only `size` closes a batch without maxWaitMs: its last batch may wait open, its members joined, undecided.
        const waiting = new Set(
          partitions.flatMap((p) => world.partition(p).open?.members.map((m) => m.occurrenceId) ?? []),
        );
        if (policy.maxWaitMs !== null) expect(waiting.size).toBe(0);
        // AD-1: exactly one decision each (none yet in an open batch); nothing of a batching Trigger is admitted alone.
        for (const s of accepted) {
          const decisions = eventsOf(s).filter((e) => OCCURRENCE_DECISION_TYPES.includes(e.type));
          if (waiting.has(idOf(s))) {
            expect(decisions).toHaveLength(0);
            expect(eventsOf(s).some((e) => e.type === 'OccurrenceBatchJoined')).toBe(true);
            continue;
          }
          expect(decisions).toHaveLength(1);
          expect(['OccurrenceBatched', 'OccurrenceCoalesced']).toContain(decisions[0]!.type);
        }
        // Every batch member is in exactly one batch (closed, or the one still open).
        expect([...closed.flatMap((c) => c.data.members), ...waiting].sort()).toEqual([...joined].sort());
        expect(new Set(joined).size).toBe(joined.length);
        // Exactly one execution request per closed batch, on its first member; every member batched into it.
        const requests = accepted.flatMap((s) =>
          eventsOf(s).flatMap((e) => (e.type === 'OccurrenceBatched' && e.data.request ? [e.data] : [])),
        );
        expect(requests.map((r) => r.executionId).sort()).toEqual(closed.map((c) => c.data.executionId!).sort());
        const eventOf = (id: string) =>
          eventsOf(streamById.get(id)!).find(
            (e): e is Extract<OccurrenceEvent, { type: 'OccurrenceBatchJoined' }> => e.type === 'OccurrenceBatchJoined',
          );
        const joinedAt = new Map(
          partitions.flatMap((p) =>
            world
              .events<BatchEvent>(p)
              .flatMap((e) =>
                e.type === 'BatchMemberAdded' ? [[e.data.occurrenceId, Date.parse(e.data.at)] as const] : [],
              ),
          ),
        );
        for (const c of closed) {
          expect(c.data.outcome).toBe('admitted');
          for (const id of c.data.members)
            expect(eventsOf(streamById.get(id)!).find((e) => e.type === 'OccurrenceBatched')?.data).toMatchObject({
              executionId: c.data.executionId,
              batchId: c.data.batchId,
            });
          const request = requests.find((r) => r.executionId === c.data.executionId)!.request!;
          expect(request.members).toEqual(c.data.members);
          // Members that joined on their own keep acceptance order; a representative is placed by its group's close.
          const direct = c.data.members.filter((id) => !eventOf(id)?.data.coalesced).map((id) => order.get(id)!);
          expect(direct).toEqual([...direct].sort((a, b) => a - b));
          const times = c.data.members.map((id) => joinedAt.get(id)!);
          const reps = c.data.members.filter((id) => eventOf(id)?.data.coalesced).map((id) => joinedAt.get(id)!);
          expect(reps).toEqual([...reps].sort((a, b) => a - b));
          expect(times.length).toBe(c.data.members.length);
        }
        // No coalesced Occurrence is a batch member; every group's representative is, standing for its group.
        const groups = [...world.streams]
          .filter(([s]) => s.startsWith('coalesce-'))
          .flatMap(([, events]) =>
            (events as CoalesceEvent[]).filter((e): e is CoalesceGroupClosed => e.type === 'CoalesceGroupClosed'),
          )
          .map((e) => e.data);
        const members = new Set(joined);
        for (const s of accepted) {
          const coalesced = eventsOf(s).find((e) => e.type === 'OccurrenceCoalesced');
          if (coalesced) expect(members.has(idOf(s))).toBe(false);
          else expect(members.has(idOf(s))).toBe(true);
        }
        for (const g of groups) {
          expect(g.decision).toBe('batched');
          expect(g.representative).toBe(g.members[g.members.length - 1]);
          const at = g.members.map((id) => order.get(id)!);
          expect(at).toEqual([...at].sort((a, b) => a - b));
          const join = eventsOf(streamById.get(g.representative)!).find((e) => e.type === 'OccurrenceBatchJoined');
          expect(join?.data).toMatchObject({ coalesced: g.members });
          for (const id of g.members.slice(0, -1))
            expect(eventsOf(streamById.get(id)!).find((e) => e.type === 'OccurrenceCoalesced')?.data).toMatchObject({
              evidence: { coalescedInto: g.representative },
            });
        }
        // A revoke or an unmatched Occurrence is never held: it goes to its batch directly.
        for (const s of accepted) {
          const input = (eventsOf(s)[0] as Extract<OccurrenceEvent, { type: 'OccurrenceObserved' }>).data.input as {
            type: string;
            action?: string;
          };
          if ((input.type !== 'health.sample' || input.action === 'revoke') && !waiting.has(idOf(s)))
            expect(eventsOf(s).map((e) => e.type)).toEqual([
              'OccurrenceObserved',
              'OccurrenceBatchJoined',
              'OccurrenceBatched',
            ]);
        }
        if (policy.size !== null)
          for (const c of closed) expect(c.data.members.length).toBeLessThanOrEqual(policy.size);
      }),
      { numRuns: 200 },
    );
  });
});
