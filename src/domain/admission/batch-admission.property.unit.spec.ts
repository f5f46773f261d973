import fc from 'fast-check';
import { executionIdFor } from '../execution/execution.js';
import type { ObservedOccurrence, OccurrenceEvent } from '../occurrence/occurrence-events.js';
import { evolveOccurrence, initialOccurrenceState, type OccurrenceState } from '../occurrence/occurrence.js';
import { definition, manualObserved, mission, trigger } from '../occurrence/occurrence.fixtures.js';
import { batchStream, occurrenceStream } from '../shared/ids.js';
import type { BatchPolicy } from '../trigger/trigger-blocks.js';
import type { BatchClosed, BatchEvent, BatchPartitionState } from '../batch/batch-events.js';
import { addMilliseconds, closeCauseAt, evolveBatchPartition, partitionOf } from '../batch/batch.js';
import { admitInOrder, type AdmittedInOrder, closeInOrder } from './admit-in-order.js';
import type { AdmissionView, BatchMemberRead, MissionCounters, ObservedState } from './admission-step.js';
import { budgetDecider, type BudgetEvent, budgetWindowStart, initialBudgetState } from './budget.js';
import { initialMissionSlots } from './slot-stripes.js';

const START = '2026-03-01T10:00:00.000Z';

type Op =
  | { kind: 'arrive'; partition: number; dt: number }
  | { kind: 'admit'; count: number }
  | { kind: 'tick'; dt: number }
  /** A crash before the admission processor's checkpoint: its last observations are admitted again. */
  | { kind: 'restart'; replay: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('arrive' as const),
    partition: fc.integer({ min: 0, max: 2 }),
    dt: fc.integer({ min: 0, max: 300 }),
  }),
  fc.record({ kind: fc.constant('admit' as const), count: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('tick' as const), dt: fc.integer({ min: 0, max: 700 }) }),
  fc.record({ kind: fc.constant('restart' as const), replay: fc.integer({ min: 1, max: 4 }) }),
);

const policyArb: fc.Arbitrary<BatchPolicy> = fc
  .record({
    size: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
    maxWaitMs: fc.option(fc.integer({ min: 50, max: 800 }), { nil: null }),
  })
  .filter((p) => p.size !== null || p.maxWaitMs !== null)
  .map((p) => ({ ...p, partitionPointer: '/p' }));

/** Streams with revisions, appended all or nothing with expected revisions, like the event store. */
class World {
  readonly streams = new Map<string, { type: string; data: unknown }[]>();
  clock = START;
  budget = initialBudgetState;

  revision = (streamId: string) => (this.streams.get(streamId)?.length ?? 0) - 1;
  events = <E>(streamId: string) => (this.streams.get(streamId) ?? []) as E[];

  /** false, and nothing appended, when any stream moved since it was read. */
  append(appends: { streamId: string; expected: number; events: { type: string; data: unknown }[] }[]): boolean {
    if (appends.some((a) => this.revision(a.streamId) !== a.expected)) return false;
    for (const a of appends) {
      if (a.events.length === 0) continue;
      this.streams.set(a.streamId, [...(this.streams.get(a.streamId) ?? []), ...a.events]);
    }
    return true;
  }

  occurrence(id: string): OccurrenceState {
    return this.events<OccurrenceEvent>(occurrenceStream(id)).reduce(evolveOccurrence, initialOccurrenceState);
  }

  /** As the command layer loads it: from the last event's `openedRevision`, never the whole history. */
  partition(streamId: string): BatchPartitionState {
    const events = this.events<BatchEvent>(streamId);
    const whole = events.reduce(evolveBatchPartition, { seq: 0, open: null, nextRevision: 0 });
    const last = events[events.length - 1];
    if (last && last.type !== 'BatchClosed') {
      const from = last.data.openedRevision;
      const opened = events[from]!.data as { seq: number };
      const partial = events
        .slice(from)
        .reduce(evolveBatchPartition, { seq: opened.seq - 1, open: null, nextRevision: from });
      expect(partial).toEqual(whole);
    }
    return whole;
  }
}

function simulate(policy: BatchPolicy, ops: readonly Op[]) {
  const world = new World();
  const batching = trigger({}, { type: 'manual', source: null, batch: policy, constraints: definition().constraints });
  const view = (): AdmissionView => ({
    now: world.clock,
    windowStart: budgetWindowStart(world.clock),
    mission: mission('active', { maxExecutionsPerHour: 100_000, maxConcurrent: 1000 }),
    triggers: new Map([['t-1', batching]]),
    sources: new Map(),
  });
  const streamOf = (o: ObservedOccurrence) =>
    batchStream(o.tenant, o.triggerId, o.triggerRevision, (partitionOf(policy, o.input) as { key: string }).key);
  const arrivals = new Map<number, string[]>();
  const accepted: ObservedOccurrence[] = [];
  const queue: ObservedOccurrence[] = [];
  let admittedUpTo = 0;
  let closes = 0;

  /** What a decision reads: the partitions named and their open batches' members, at their revisions. */
  function counters(occurrences: readonly ObservedOccurrence[], extra: string[] = []): MissionCounters {
    const ids = [...new Set([...occurrences.map(streamOf), ...extra])];
    const batches = new Map(ids.map((id) => [id, world.partition(id)]));
    const batchMembers = new Map<string, BatchMemberRead>();
    for (const state of batches.values())
      for (const m of state.open?.members ?? []) {
        const found = world.occurrence(m.occurrenceId);
        if (found.status === 'observed')
          batchMembers.set(m.occurrenceId, {
            occurrence: found.occurrence,
            streamId: m.streamId,
            expected: world.revision(m.streamId),
          });
      }
    return { budget: world.budget, concurrency: initialMissionSlots, batches, batchMembers };
  }

  function apply(
    admitted: AdmittedInOrder,
    read: MissionCounters,
    items: { occurrence: ObservedOccurrence; expected: number }[],
  ): boolean {
    const appends: { streamId: string; expected: number; events: { type: string; data: unknown }[] }[] = [];
    for (const [streamId, events] of admitted.batches)
      appends.push({ streamId, expected: read.batches!.get(streamId)!.nextRevision - 1, events });
    const itemIds = new Set(items.map((i) => i.occurrence.occurrenceId));
    for (const [id, events] of admitted.memberDecisions)
      if (!itemIds.has(id))
        appends.push({ streamId: occurrenceStream(id), expected: read.batchMembers!.get(id)!.expected!, events });
    items.forEach(({ occurrence, expected }, i) => {
      const events = [...admitted.steps[i]!.decision, ...(admitted.memberDecisions.get(occurrence.occurrenceId) ?? [])];
      appends.push({ streamId: occurrenceStream(occurrence.occurrenceId), expected, events });
    });
    const ok = world.append(appends);
    if (ok) world.budget = (admitted.budget as BudgetEvent[]).reduce(budgetDecider.evolve, world.budget);
    return ok;
  }

  /** The admission processor: the observations as read (revision 0), all together; after a conflict one by one. */
  function admit(batch: ObservedOccurrence[]): void {
    if (batch.length === 0) return;
    const states: ObservedState[] = batch.map((occurrence) => ({
      status: 'observed',
      occurrence,
      conflictingDigests: [],
    }));
    const read = counters(batch);
    const together = admitInOrder(states, view(), read);
    if (
      apply(
        together,
        read,
        batch.map((occurrence) => ({ occurrence, expected: 0 })),
      )
    )
      return;
    for (const occurrence of batch) {
      const state = world.occurrence(occurrence.occurrenceId);
      if (state.status !== 'observed') continue;
      const alone = counters([occurrence]);
      const expected = world.revision(occurrenceStream(occurrence.occurrenceId));
      expect(apply(admitInOrder([state], view(), alone), alone, [{ occurrence, expected }])).toBe(true);
    }
  }

  /** Two closers race on every due partition: one closes it, the other finds nothing due when it reads again. */
  function closeDue(): void {
    for (const streamId of [...world.streams.keys()].filter((s) => s.startsWith('batch-'))) {
      const read = counters([], [streamId]);
      const cause = closeCauseAt(read.batches!.get(streamId)!, world.clock);
      if (!cause) continue;
      const first = closeInOrder(streamId, cause, view(), read);
      const second = closeInOrder(streamId, cause, view(), read);
      expect(apply(first, read, [])).toBe(true);
      expect(apply(second, read, [])).toBe(false);
      expect(closeCauseAt(world.partition(streamId), world.clock)).toBeNull();
      closes++;
    }
  }

  for (const step of ops) {
    switch (step.kind) {
      case 'arrive': {
        world.clock = addMilliseconds(world.clock, step.dt);
        const n = accepted.length;
        const occurrence = { ...manualObserved(`k-${n}`), input: { p: step.partition, n }, observedAt: world.clock };
        world.append([
          {
            streamId: occurrenceStream(occurrence.occurrenceId),
            expected: -1,
            events: [{ type: 'OccurrenceObserved', data: occurrence }],
          },
        ]);
        accepted.push(occurrence);
        queue.push(occurrence);
        arrivals.set(step.partition, [...(arrivals.get(step.partition) ?? []), occurrence.occurrenceId]);
        break;
      }
      case 'admit':
        admit(queue.splice(0, step.count));
        admittedUpTo = accepted.length - queue.length;
        break;
      case 'tick':
        world.clock = addMilliseconds(world.clock, step.dt);
        closeDue();
        break;
      case 'restart':
        admit(accepted.slice(Math.max(0, admittedUpTo - step.replay), admittedUpTo));
        break;
    }
  }
  // Everything admitted, then past every deadline.
  admit(queue.splice(0));
  world.clock = addMilliseconds(world.clock, (policy.maxWaitMs ?? 0) + 1);
  closeDue();
  return { world, arrivals, accepted, closes };
}

describe('BA-1 batching never loses or duplicates a member (property, against a simple model)', () => {
  it('BA-1 random arrivals, admission replays after restarts and racing closers: every member in exactly one batch, in acceptance order, one execution per batch', () => {
    fc.assert(
      fc.property(policyArb, fc.array(op, { maxLength: 60 }), (policy, ops) => {
        const { world, arrivals, accepted } = simulate(policy, ops);
        const byId = new Map(accepted.map((o) => [o.occurrenceId, o]));
        // AD-1: at most one decision per Occurrence, and every one is batched (nothing here blocks).
        for (const o of accepted) {
          const decisions = world
            .events<OccurrenceEvent>(occurrenceStream(o.occurrenceId))
            .filter((e) => e.type !== 'OccurrenceObserved' && e.type !== 'OccurrenceBatchJoined');
          expect(decisions.length).toBeLessThanOrEqual(1);
          if (decisions[0]) expect(decisions[0].type).toBe('OccurrenceBatched');
        }
        let requests = 0;
        for (const [partition, ids] of arrivals) {
          const streamId = batchStream('acme', 't-1', 2, JSON.stringify(partition));
          const closed = world.events<BatchEvent>(streamId).filter((e): e is BatchClosed => e.type === 'BatchClosed');
          const open = world.partition(streamId).open;
          // The model: the partition's arrivals, cut into consecutive batches, none lost, none twice.
          expect([
            ...closed.flatMap((c) => c.data.members),
            ...(open?.members.map((m) => m.occurrenceId) ?? []),
          ]).toEqual(ids);
          if (policy.maxWaitMs !== null) expect(open).toBeNull();
          for (const c of closed) {
            const members = c.data.members.map((id) => byId.get(id)!);
            const openedAt = members[0]!.observedAt;
            if (policy.size !== null) expect(members.length).toBeLessThanOrEqual(policy.size);
            if (c.data.cause === 'size') expect(members.length).toBe(policy.size);
            // maxWaitMs counts from the first member's acceptance; a member joins only before the deadline, and
            // a batch is never closed for time before it.
            if (policy.maxWaitMs !== null) {
              const deadline = Date.parse(openedAt) + policy.maxWaitMs;
              for (const m of members) expect(Date.parse(m.observedAt)).toBeLessThan(deadline);
              if (c.data.cause === 'max_wait') expect(Date.parse(c.data.closedAt)).toBeGreaterThanOrEqual(deadline);
            }
            const executionId = executionIdFor(c.data.members[0]!);
            expect(c.data.executionId).toBe(executionId);
            c.data.members.forEach((id, i) => {
              const decision = world
                .events<OccurrenceEvent>(occurrenceStream(id))
                .find((e) => e.type === 'OccurrenceBatched');
              expect(decision?.type === 'OccurrenceBatched' && decision.data.executionId).toBe(executionId);
              const request = decision?.type === 'OccurrenceBatched' ? decision.data.request : undefined;
              if (i === 0) {
                requests++;
                expect(request?.members).toEqual(c.data.members);
                expect(request?.input).toEqual({ members: members.map((m) => m.input) });
              } else expect(request).toBeUndefined();
            });
          }
        }
        // One execution per closed batch, each counted once by the budget.
        const closedCount = [...world.streams.entries()]
          .filter(([s]) => s.startsWith('batch-'))
          .flatMap(([, events]) => events.filter((e) => e.type === 'BatchClosed')).length;
        expect(requests).toBe(closedCount);
        expect(world.budget.consumed).toBe(closedCount);
      }),
      { numRuns: 300 },
    );
  });
});
