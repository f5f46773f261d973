import type { BatchEvent, BatchPartitionState } from '../batch/batch-events.js';
import { closeCauseAt, evolveBatchPartition, partitionOf } from '../batch/batch.js';
import {
  type CoalesceEvent,
  type CoalesceRead,
  coalesceTargetOf,
  evolveCoalesce,
  initialCoalesceState,
  isDue,
  MAX_COALESCE_MEMBERS,
  membersOf,
} from '../coalescing/index.js';
import type { CausalLink, ObservedOccurrence, OccurrenceEvent } from '../occurrence/occurrence-events.js';
import { evolveOccurrence, initialOccurrenceState, type OccurrenceState } from '../occurrence/occurrence.js';
import { definition, manualObserved, mission, trigger } from '../occurrence/occurrence.fixtures.js';
import { batchStream, occurrenceStream } from '../shared/ids.js';
import type { BatchPolicy } from '../trigger/trigger-blocks.js';
import { admitInOrder, type AdmittedInOrder, closeInOrder } from './admit-in-order.js';
import {
  type AdmissionView,
  batchMemberOf,
  type BatchMemberRead,
  type MissionCounters,
  type ObservedState,
} from './admission-step.js';
import { budgetDecider, type BudgetState, budgetWindowStart, initialBudgetState } from './budget.js';
import { RULES } from './coalescing.fixtures.js';
import { initialMissionSlots } from './slot-stripes.js';

export type Event = { type: string; data: unknown };
export interface Append {
  streamId: string;
  expected: number;
  events: Event[];
}

/**
 * BA-1 with DD-5: a model event store for a manual Trigger that coalesces (RULES: health samples per host within a
 * second, a revoke never) and batches (`policy`, partitioned at `/p`). Streams are appended all or nothing with
 * expected revisions; `admission` does what admission-write does (reads the coalesce streams, a closing group's
 * members and representative, the batch partitions and their open batches' members, then decides with
 * admitInOrder); the two timers close due groups and due batches.
 */
export class CoalesceBatchWorld {
  readonly streams = new Map<string, Event[]>();
  readonly accepted: string[] = [];
  budget: BudgetState = initialBudgetState;
  readonly trigger;

  constructor(
    readonly policy: BatchPolicy,
    public clock: string,
    private readonly limits = { maxExecutionsPerHour: 100_000, maxConcurrent: 1000 },
  ) {
    this.trigger = trigger(
      {},
      { type: 'manual', source: null, coalesce: RULES, batch: policy, constraints: definition().constraints },
    );
  }

  revision = (streamId: string) => (this.streams.get(streamId)?.length ?? 0) - 1;
  events = <E>(streamId: string) => (this.streams.get(streamId) ?? []) as E[];

  append(appends: readonly Append[]): boolean {
    if (appends.some((a) => this.revision(a.streamId) !== a.expected)) return false;
    for (const a of appends)
      if (a.events.length > 0) this.streams.set(a.streamId, [...(this.streams.get(a.streamId) ?? []), ...a.events]);
    return true;
  }

  /** A manual Occurrence accepted now (CA-1: with `causal`, a causal child): its stream. */
  observe(key: string, input: unknown, causal?: CausalLink): string {
    const occurrence = { ...manualObserved(key), input, observedAt: this.clock, ...(causal ? { causal } : {}) };
    const streamId = occurrenceStream(occurrence.dedupeHash);
    this.append([{ streamId, expected: -1, events: [{ type: 'OccurrenceObserved', data: occurrence }] }]);
    this.accepted.push(streamId);
    return streamId;
  }

  occurrence(streamId: string): OccurrenceState {
    return this.events<OccurrenceEvent>(streamId).reduce(evolveOccurrence, initialOccurrenceState);
  }

  idOf(streamId: string): string {
    return (this.events<OccurrenceEvent>(streamId)[0] as Extract<OccurrenceEvent, { type: 'OccurrenceObserved' }>).data
      .occurrenceId;
  }

  partition(streamId: string): BatchPartitionState {
    return this.events<BatchEvent>(streamId).reduce(evolveBatchPartition, { seq: 0, open: null, nextRevision: 0 });
  }

  coalesce(streamId: string): CoalesceRead {
    const events = this.events<CoalesceEvent>(streamId);
    return { state: events.reduce(evolveCoalesce, initialCoalesceState), revision: events.length - 1, members: null };
  }

  partitionStream(o: ObservedOccurrence): string {
    return batchStream(
      o.tenant,
      o.triggerId,
      o.triggerRevision,
      (partitionOf(this.policy, o.input) as { key: string }).key,
    );
  }

  view(held: AdmissionView['held']): AdmissionView {
    return {
      now: this.clock,
      windowStart: budgetWindowStart(this.clock),
      mission: mission('active', this.limits),
      triggers: new Map([['t-1', this.trigger]]),
      sources: new Map(),
      held,
    };
  }

  /** The batch partitions named and their open batches' members, as batch-reads reads them. */
  batchReads(streamIds: readonly string[]): Pick<MissionCounters, 'batches' | 'batchMembers'> {
    const batches = new Map([...new Set(streamIds)].map((id) => [id, this.partition(id)]));
    const batchMembers = new Map<string, BatchMemberRead>();
    for (const state of batches.values())
      for (const m of state.open?.members ?? []) {
        const found = this.occurrence(m.streamId);
        if (found.status === 'observed')
          batchMembers.set(m.occurrenceId, batchMemberOf(found, m.streamId, this.revision(m.streamId)));
      }
    return { batches, batchMembers };
  }

  /** admission-write's reads, decision and appends; the budget moves when they land. */
  admission(streamIds: readonly string[]): Append[] {
    const items = streamIds
      .map((streamId) => ({ streamId, expected: this.revision(streamId), state: this.occurrence(streamId) }))
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
    const representatives: ObservedOccurrence[] = [];
    for (const [streamId, count] of incoming) {
      const read = this.coalesce(streamId);
      const open = read.state.open;
      if (open && (isDue(open, this.clock) || open.size + count >= MAX_COALESCE_MEMBERS)) {
        read.members = membersOf(open, this.events<CoalesceEvent>(streamId).slice(open.openedRevision));
        for (const m of read.members)
          if (!own.has(m.streamId))
            held.set(m.streamId, { state: this.occurrence(m.streamId), revision: this.revision(m.streamId) });
        const last = held.get(read.members[read.members.length - 1]!.streamId)?.state;
        if (last?.status === 'observed') representatives.push(last.occurrence);
      }
      groups.set(streamId, read);
    }
    const counters: MissionCounters = {
      budget: this.budget,
      concurrency: initialMissionSlots,
      coalesce: groups,
      ...this.batchReads(
        [...items.map((i) => i.state.occurrence), ...representatives].map((o) => this.partitionStream(o)),
      ),
    };
    const admitted = admitInOrder(
      items.map((i) => i.state),
      this.view(held),
      counters,
    );
    const itemIds = new Set(items.map((i) => i.state.occurrence.occurrenceId));
    return [
      ...this.budgetAppend(admitted),
      ...[...admitted.coalesce].map(([streamId, events]) => ({
        streamId,
        expected: groups.get(streamId)!.revision,
        events,
      })),
      ...[...admitted.held].map(([streamId, events]) => ({ streamId, expected: held.get(streamId)!.revision, events })),
      ...this.batchAppends(admitted, counters, itemIds),
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

  /** The Mission's budget as one model stream, appended at the revision read like any counter. */
  private budgetAppend(admitted: AdmittedInOrder): Append[] {
    return admitted.budget.length > 0
      ? [{ streamId: 'budget', expected: this.revision('budget'), events: admitted.budget }]
      : [];
  }

  private batchAppends(admitted: AdmittedInOrder, read: MissionCounters, itemIds: ReadonlySet<string>): Append[] {
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

  /** Appends, and on success folds the budget it counted. */
  commit(appends: readonly Append[]): boolean {
    const ok = this.append(appends);
    if (ok)
      for (const a of appends)
        if (a.streamId === 'budget') this.budget = (a.events as never[]).reduce(budgetDecider.evolve, this.budget);
    return ok;
  }

  /** The coalesce timer's view: each due group's first member, which it presents to admission again. */
  dueMembers(): string[] {
    return [...this.streams.keys()]
      .filter((s) => s.startsWith('coalesce-'))
      .flatMap((streamId) => {
        const open = this.coalesce(streamId).state.open;
        if (!open || !isDue(open, this.clock)) return [];
        const opened = this.events<CoalesceEvent>(streamId)[open.openedRevision]!;
        return [(opened as Extract<CoalesceEvent, { type: 'CoalesceGroupOpened' }>).data.member.streamId];
      });
  }

  /** Every due group's close computed from one read (racing processes); of conflicting writes one lands. */
  coalesceTimer(): Append[][] {
    return this.dueMembers().map((member) => this.admission([member]));
  }

  /** The coalesce timer closing each due group from a fresh read (the write kernel retries a conflict so). */
  closeDueGroups(): boolean {
    return this.dueMembers().every((member) => this.commit(this.admission([member])));
  }

  /** A due partition's close as the batch closer computes it (null: nothing due). */
  batchClose(streamId: string): Append[] | null {
    const read: MissionCounters = {
      budget: this.budget,
      concurrency: initialMissionSlots,
      ...this.batchReads([streamId]),
    };
    const cause = closeCauseAt(read.batches!.get(streamId)!, this.clock);
    if (!cause) return null;
    const closed = closeInOrder(streamId, cause, this.view(new Map()), read);
    return [...this.budgetAppend(closed), ...this.batchAppends(closed, read, new Set())];
  }

  partitions(): string[] {
    return [...this.streams.keys()].filter((s) => s.startsWith('batch-'));
  }
}
