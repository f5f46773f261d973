import {
  type CoalesceEvent,
  type CoalesceRead,
  type CoalesceRule,
  coalesceTargetOf,
  evolveCoalesce,
  initialCoalesceState,
  isDue,
  MAX_COALESCE_MEMBERS,
  membersOf,
} from '../coalescing/index.js';
import type { OccurrenceEvent } from '../occurrence/occurrence-events.js';
import { occurrenceDecider, type OccurrenceState } from '../occurrence/occurrence.js';
import { manualObserved, mission, trigger } from '../occurrence/occurrence.fixtures.js';
import { occurrenceStream } from '../shared/ids.js';
import { admitInOrder, type ObservedState } from './admit-in-order.js';
import { budgetWindowStart, initialBudgetState } from './budget.js';
import { initialMissionSlots } from './slot-stripes.js';

/** Health samples coalesce per host within a second; a revoke never does (DD-5). */
export const RULES: CoalesceRule[] = [
  {
    match: { pointer: '/type', equals: 'health.sample' },
    mode: 'latest',
    windowMs: 1000,
    resourcePointer: '/host',
    neverCoalesce: { pointer: '/action', equals: 'revoke' },
  },
];
export const coalescingTrigger = trigger({}, { type: 'manual', source: null, coalesce: RULES });

export interface Append {
  streamId: string;
  expected: number;
  events: Array<OccurrenceEvent | CoalesceEvent>;
}

/**
 * A model event store for the coalescing property tests: streams of domain events, appended all or nothing with
 * an expected revision per stream (decision 1), so racing writers computed from one read cannot both land.
 */
export class ModelStore {
  readonly streams = new Map<string, Array<OccurrenceEvent | CoalesceEvent>>();

  revisionOf(streamId: string): number {
    return (this.streams.get(streamId)?.length ?? 0) - 1;
  }

  observe(key: string, input: unknown, observedAt: string): string {
    const occurrence = { ...manualObserved(key), input, observedAt };
    const streamId = occurrenceStream(occurrence.dedupeHash);
    this.streams.set(streamId, [{ type: 'OccurrenceObserved', data: occurrence }]);
    return streamId;
  }

  occurrence(streamId: string): OccurrenceState {
    return ((this.streams.get(streamId) ?? []) as OccurrenceEvent[]).reduce(
      occurrenceDecider.evolve,
      occurrenceDecider.initialState,
    );
  }

  coalesce(streamId: string): CoalesceRead {
    const events = (this.streams.get(streamId) ?? []) as CoalesceEvent[];
    const state = events.reduce(evolveCoalesce, initialCoalesceState);
    return { state, revision: events.length - 1, members: null };
  }

  /** All or nothing: false (nothing written) when any stream moved since it was read. */
  commit(appends: readonly Append[]): boolean {
    if (appends.some((a) => this.revisionOf(a.streamId) !== a.expected)) return false;
    for (const a of appends) this.streams.set(a.streamId, [...(this.streams.get(a.streamId) ?? []), ...a.events]);
    return true;
  }

  /**
   * What admission-write does, minus the counters: read the Occurrences, the coalesce streams they touch (with a
   * closing group's members and their streams), decide with admitInOrder at `now`, and answer the appends.
   */
  admission(streamIds: readonly string[], now: string): Append[] {
    const items = streamIds
      .map((streamId) => ({ streamId, expected: this.revisionOf(streamId), state: this.occurrence(streamId) }))
      .filter((i): i is typeof i & { state: ObservedState } => i.state.status === 'observed');
    if (items.length === 0) return [];
    const incoming = new Map<string, number>();
    for (const { state } of items) {
      const streamId = state.held?.groupStream ?? coalesceTargetOf(RULES, state.occurrence)?.streamId;
      if (streamId) incoming.set(streamId, (incoming.get(streamId) ?? 0) + (state.held ? 0 : 1));
    }
    const groups = new Map<string, CoalesceRead>();
    const held = new Map<string, { state: OccurrenceState; revision: number }>();
    const own = new Set(items.map((i) => i.streamId));
    for (const [streamId, count] of incoming) {
      const read = this.coalesce(streamId);
      const open = read.state.open;
      if (open && (isDue(open, now) || open.size + count >= MAX_COALESCE_MEMBERS)) {
        const events = (this.streams.get(streamId) as CoalesceEvent[]).slice(open.openedRevision);
        read.members = membersOf(open, events);
        for (const m of read.members)
          if (!own.has(m.streamId))
            held.set(m.streamId, { state: this.occurrence(m.streamId), revision: this.revisionOf(m.streamId) });
      }
      groups.set(streamId, read);
    }
    const admitted = admitInOrder(
      items.map((i) => i.state),
      {
        now,
        windowStart: budgetWindowStart(now),
        mission: mission('active', { maxExecutionsPerHour: 10_000, maxConcurrent: 100 }),
        triggers: new Map([['t-1', coalescingTrigger]]),
        sources: new Map(),
        held,
      },
      { budget: initialBudgetState, concurrency: initialMissionSlots, coalesce: groups },
    );
    return [
      ...[...admitted.coalesce].map(([streamId, events]) => ({
        streamId,
        expected: groups.get(streamId)!.revision,
        events,
      })),
      ...[...admitted.held].map(([streamId, events]) => ({ streamId, expected: held.get(streamId)!.revision, events })),
      ...items.flatMap((item, i) => {
        const events = admitted.steps[i]!.decision;
        return events.length > 0 ? [{ streamId: item.streamId, expected: item.expected, events }] : [];
      }),
    ];
  }

  /** The timer's view: coalesce streams whose open group is due by `now`, with its first member's stream. */
  dueGroups(now: string): string[] {
    const due: string[] = [];
    for (const [streamId, events] of this.streams) {
      if (!streamId.startsWith('coalesce-')) continue;
      const open = (events as CoalesceEvent[]).reduce(evolveCoalesce, initialCoalesceState).open;
      if (open && Date.parse(open.closesAt) <= Date.parse(now))
        due.push(
          (events[open.openedRevision] as Extract<CoalesceEvent, { type: 'CoalesceGroupOpened' }>).data.member.streamId,
        );
    }
    return due;
  }
}
