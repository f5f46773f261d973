import fc from 'fast-check';
import type { BatchClosed, BatchEvent, BatchPartitionState } from '../batch/batch-events.js';
import { addMilliseconds, closeCauseAt, evolveBatchPartition, partitionOf } from '../batch/batch.js';
import {
  type CoalesceEvent,
  type CoalesceGroupClosed,
  type CoalesceRead,
  coalesceTargetOf,
  evolveCoalesce,
  initialCoalesceState,
  isDue,
  MAX_COALESCE_MEMBERS,
  membersOf,
} from '../coalescing/index.js';
import { OCCURRENCE_DECISION_TYPES, type OccurrenceEvent } from '../occurrence/occurrence-events.js';
import { evolveOccurrence, initialOccurrenceState, type OccurrenceState } from '../occurrence/occurrence.js';
import { definition, manualObserved, mission, trigger } from '../occurrence/occurrence.fixtures.js';
import { batchStream, occurrenceStream } from '../shared/ids.js';
import type { BatchPolicy } from '../trigger/trigger-blocks.js';
import { admitInOrder, type AdmittedInOrder, closeInOrder } from './admit-in-order.js';
import type { AdmissionView, BatchMemberRead, MissionCounters, ObservedState } from './admission-step.js';
import { budgetWindowStart, initialBudgetState } from './budget.js';
import { RULES } from './coalescing.fixtures.js';
import { initialMissionSlots } from './slot-stripes.js';

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

type Event = { type: string; data: unknown };
interface Append {
  streamId: string;
  expected: number;
  events: Event[];
}

/** Streams with revisions, appended all or nothing with expected revisions, like the event store. */
class World {
  readonly streams = new Map<string, Event[]>();
  clock = START;

  revision = (streamId: string) => (this.streams.get(streamId)?.length ?? 0) - 1;
  events = <E>(streamId: string) => (this.streams.get(streamId) ?? []) as E[];

  append(appends: readonly Append[]): boolean {
    if (appends.some((a) => this.revision(a.streamId) !== a.expected)) return false;
    for (const a of appends)
      if (a.events.length > 0) this.streams.set(a.streamId, [...(this.streams.get(a.streamId) ?? []), ...a.events]);
    return true;
  }

  occurrence(streamId: string): OccurrenceState {
    return this.events<OccurrenceEvent>(streamId).reduce(evolveOccurrence, initialOccurrenceState);
  }

  partition(streamId: string): BatchPartitionState {
    return this.events<BatchEvent>(streamId).reduce(evolveBatchPartition, { seq: 0, open: null, nextRevision: 0 });
  }

  coalesce(streamId: string): CoalesceRead {
    const events = this.events<CoalesceEvent>(streamId);
    return { state: events.reduce(evolveCoalesce, initialCoalesceState), revision: events.length - 1, members: null };
  }
}

function simulate(policy: BatchPolicy, ops: readonly Op[]) {
  const world = new World();
  const both = trigger(
    {},
    { type: 'manual', source: null, coalesce: RULES, batch: policy, constraints: definition().constraints },
  );
  const accepted: string[] = [];
  let admittedUpTo = 0;
  const view = (held: AdmissionView['held']): AdmissionView => ({
    now: world.clock,
    windowStart: budgetWindowStart(world.clock),
    mission: mission('active', { maxExecutionsPerHour: 100_000, maxConcurrent: 1000 }),
    triggers: new Map([['t-1', both]]),
    sources: new Map(),
    held,
  });
  const partitionStream = (o: ObservedState['occurrence']) =>
    batchStream(o.tenant, o.triggerId, o.triggerRevision, (partitionOf(policy, o.input) as { key: string }).key);

  /** The batch partitions named and their open batches' members, as batch-reads reads them. */
  function batchReads(streamIds: readonly string[]): Pick<MissionCounters, 'batches' | 'batchMembers'> {
    const batches = new Map([...new Set(streamIds)].map((id) => [id, world.partition(id)]));
    const batchMembers = new Map<string, BatchMemberRead>();
    for (const state of batches.values())
      for (const m of state.open?.members ?? []) {
        const found = world.occurrence(m.streamId);
        if (found.status === 'observed')
          batchMembers.set(m.occurrenceId, {
            occurrence: found.occurrence,
            streamId: m.streamId,
            expected: world.revision(m.streamId),
          });
      }
    return { batches, batchMembers };
  }

  /** admission-write's reads, decision and appends (the counters left out: the budget is ample here). */
  function admission(streamIds: readonly string[]): Append[] {
    const items = streamIds
      .map((streamId) => ({ streamId, expected: world.revision(streamId), state: world.occurrence(streamId) }))
      .filter((i): i is typeof i & { state: ObservedState } => i.state.status === 'observed');
    if (items.length === 0) return [];
    const incoming = new Map<string, number>();
    for (const { state } of items.filter((i) => !i.state.batch)) {
      const streamId = state.held?.groupStream ?? coalesceTargetOf(RULES, state.occurrence)?.streamId;
      if (streamId) incoming.set(streamId, (incoming.get(streamId) ?? 0) + (state.held ? 0 : 1));
    }
    const groups = new Map<string, CoalesceRead>();
    const held = new Map<string, { state: OccurrenceState; revision: number }>();
    const own = new Set(items.map((i) => i.streamId));
    const representatives: ObservedState['occurrence'][] = [];
    for (const [streamId, count] of incoming) {
      const read = world.coalesce(streamId);
      const open = read.state.open;
      if (open && (isDue(open, world.clock) || open.size + count >= MAX_COALESCE_MEMBERS)) {
        read.members = membersOf(open, world.events<CoalesceEvent>(streamId).slice(open.openedRevision));
        for (const m of read.members)
          if (!own.has(m.streamId))
            held.set(m.streamId, { state: world.occurrence(m.streamId), revision: world.revision(m.streamId) });
        const last = held.get(read.members[read.members.length - 1]!.streamId)?.state;
        if (last?.status === 'observed') representatives.push(last.occurrence);
      }
      groups.set(streamId, read);
    }
    const counters: MissionCounters = {
      budget: initialBudgetState,
      concurrency: initialMissionSlots,
      coalesce: groups,
      ...batchReads([...items.map((i) => i.state.occurrence), ...representatives].map(partitionStream)),
    };
    const admitted = admitInOrder(
      items.map((i) => i.state),
      view(held),
      counters,
    );
    const itemIds = new Set(items.map((i) => i.state.occurrence.occurrenceId));
    return [
      ...[...admitted.coalesce].map(([streamId, events]) => ({
        streamId,
        expected: groups.get(streamId)!.revision,
        events,
      })),
      ...[...admitted.held].map(([streamId, events]) => ({ streamId, expected: held.get(streamId)!.revision, events })),
      ...batchAppends(admitted, counters, itemIds),
      ...items.map(({ streamId, expected, state }, i) => ({
        streamId,
        expected,
        events: [
          ...admitted.steps[i]!.decision,
          ...(admitted.memberDecisions.get(state.occurrence.occurrenceId) ?? []),
        ],
      })),
    ];
  }

  function batchAppends(admitted: AdmittedInOrder, read: MissionCounters, itemIds: ReadonlySet<string>): Append[] {
    const appends: Append[] = [];
    for (const [streamId, events] of admitted.batches)
      appends.push({ streamId, expected: read.batches!.get(streamId)!.nextRevision - 1, events });
    for (const [id, events] of admitted.memberDecisions)
      if (!itemIds.has(id)) {
        const member = read.batchMembers!.get(id)!;
        appends.push({ streamId: member.streamId, expected: member.expected!, events });
      }
    return appends;
  }

  /** The coalesce timer's view: each due group's first member, which it presents to admission again. */
  const dueMembers = (): string[] =>
    [...world.streams.keys()]
      .filter((s) => s.startsWith('coalesce-'))
      .flatMap((streamId) => {
        const open = world.coalesce(streamId).state.open;
        if (!open || !isDue(open, world.clock)) return [];
        const opened = world.events<CoalesceEvent>(streamId)[open.openedRevision]!;
        return [(opened as Extract<CoalesceEvent, { type: 'CoalesceGroupOpened' }>).data.member.streamId];
      });

  /** Every due group's close computed from one read (racing processes); of conflicting writes one lands. */
  const coalesceTimer = (): Append[][] => dueMembers().map((member) => admission([member]));

  /** The coalesce timer closing each due group from a fresh read (the write kernel retries a conflict so). */
  function closeDueGroups(): void {
    for (const member of dueMembers()) expect(world.append(admission([member]))).toBe(true);
  }

  /** The batch closer: every due partition closed by its own timer (two racing closers, one lands). */
  function batchTimer(): void {
    for (const streamId of [...world.streams.keys()].filter((s) => s.startsWith('batch-'))) {
      const read: MissionCounters = {
        budget: initialBudgetState,
        concurrency: initialMissionSlots,
        ...batchReads([streamId]),
      };
      const cause = closeCauseAt(read.batches!.get(streamId)!, world.clock);
      if (!cause) continue;
      const first = batchAppends(closeInOrder(streamId, cause, view(new Map()), read), read, new Set());
      expect(world.append(first)).toBe(true);
      expect(world.append(first)).toBe(false);
    }
  }

  const admit = (streams: readonly string[]) => {
    if (streams.length === 0) return;
    if (world.append(admission(streams))) return;
    // A conflict: decided again one by one from fresh reads (one of the racers landed).
    for (const s of streams) expect(world.append(admission([s]))).toBe(true);
  };

  for (const step of ops) {
    switch (step.kind) {
      case 'arrive': {
        world.clock = addMilliseconds(world.clock, step.dt);
        const n = accepted.length;
        const input =
          step.what === 'other'
            ? { type: 'deploy', host: step.host, p: step.p, n }
            : {
                type: 'health.sample',
                host: step.host,
                p: step.p,
                n,
                ...(step.what === 'revoke' ? { action: 'revoke' } : {}),
              };
        const occurrence = { ...manualObserved(`k-${n}`), input, observedAt: world.clock };
        const streamId = occurrenceStream(occurrence.dedupeHash);
        world.append([{ streamId, expected: -1, events: [{ type: 'OccurrenceObserved', data: occurrence }] }]);
        accepted.push(streamId);
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
        closeDueGroups();
        batchTimer();
        break;
      case 'race': {
        const next = accepted.slice(admittedUpTo, admittedUpTo + step.count);
        const admitting = next.length > 0 ? admission(next) : [];
        for (const appends of coalesceTimer()) world.append(appends);
        if (next.length > 0) admit(world.append(admitting) ? [] : next);
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
    closeDueGroups();
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
        const partitions = [...world.streams.keys()].filter((s) => s.startsWith('batch-'));
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
        for (const c of closed) {
          expect(c.data.outcome).toBe('admitted');
          for (const id of c.data.members)
            expect(eventsOf(streamById.get(id)!).find((e) => e.type === 'OccurrenceBatched')?.data).toMatchObject({
              executionId: c.data.executionId,
              batchId: c.data.batchId,
            });
          const request = requests.find((r) => r.executionId === c.data.executionId)!.request!;
          expect(request.members).toEqual(c.data.members);
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
