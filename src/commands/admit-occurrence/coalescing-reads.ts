import {
  type CoalesceEvent,
  coalesceFold,
  type CoalesceRead,
  coalesceTargetOf,
  isDue,
  MAX_COALESCE_MEMBERS,
  membersOf,
} from '../../domain/coalescing/index.js';
import { authenticatingKey, type ObservedState } from '../../domain/admission/index.js';
import type { EventMetadata, EventStore } from '../../domain/ports/event-store.js';
import type { ObservedOccurrence, OccurrenceEvent } from '../../domain/occurrence/occurrence-events.js';
import { sourceStream } from '../../domain/shared/ids.js';
import { sourceDecider, type SourceState } from '../../domain/source/source.js';
import { occurrenceDecider, type OccurrenceState } from '../../domain/occurrence/occurrence.js';
import type { TriggerState } from '../../domain/trigger/trigger.js';
import { asDomainEvent, loadAggregate, loadAggregates, loadLatest } from '../shared/aggregate.js';
import { appendOf } from '../shared/write-kernel.js';
import type { TaggedAppend } from './decision-notifier.js';

export interface CoalescingReads {
  groups: Map<string, CoalesceRead>;
  /** Members of the groups that may close in this run, other than the run's own Occurrences. */
  held: Map<string, { state: OccurrenceState; revision: number }>;
}

interface Given {
  occurrence: ObservedOccurrence;
  streamId: string;
  /** DD-5: the group it already waits in. */
  heldIn: string | null;
}

/**
 * DD-5: the coalesce streams a run may touch (the groups its Occurrences would join, and the groups its held
 * Occurrences wait in), each by its last event; for a group that may close in the run (due by the database
 * clock, or filling up), its members from the group's first event on and their Occurrence streams.
 */
export async function readCoalescing(
  store: EventStore,
  now: string,
  given: readonly Given[],
  triggers: ReadonlyMap<string, TriggerState>,
): Promise<CoalescingReads> {
  const incoming = new Map<string, number>();
  for (const { occurrence, heldIn } of given) {
    const trigger = triggers.get(occurrence.triggerId);
    const streamId =
      heldIn ??
      (trigger?.status === 'defined' && !trigger.deleted
        ? (coalesceTargetOf(trigger.definition.coalesce, occurrence)?.streamId ?? null)
        : null);
    if (streamId) incoming.set(streamId, (incoming.get(streamId) ?? 0) + (heldIn ? 0 : 1));
  }
  const groups = new Map<string, CoalesceRead>();
  const held = new Map<string, { state: OccurrenceState; revision: number }>();
  if (incoming.size === 0) return { groups, held };
  const streamIds = [...incoming.keys()];
  const latest = await Promise.all(streamIds.map((id) => loadLatest(store, id, coalesceFold)));
  const own = new Set(given.map((g) => g.streamId));
  const closing = await Promise.all(
    streamIds.map(async (streamId, i) => {
      const { state, revision } = latest[i]!;
      const open = state.open;
      const mayClose = open && (isDue(open, now) || open.size + incoming.get(streamId)! >= MAX_COALESCE_MEMBERS);
      if (!mayClose) return { streamId, read: { state, revision, members: null } };
      const events = await store.readStream(streamId, { fromRevision: open.openedRevision });
      const members = membersOf(
        open,
        events.filter((e) => e.revision <= revision).map((e) => asDomainEvent<CoalesceEvent>(e)),
      );
      return { streamId, read: { state, revision, members } };
    }),
  );
  const memberStreams = [
    ...new Set(closing.flatMap(({ read }) => (read.members ?? []).map((m) => m.streamId)).filter((id) => !own.has(id))),
  ];
  const loaded = await loadAggregates(
    store,
    memberStreams.map((streamId) => ({ streamId, decider: occurrenceDecider })),
  );
  memberStreams.forEach((streamId, i) =>
    held.set(streamId, loaded[i]! as { state: OccurrenceState; revision: number }),
  );
  for (const { streamId, read } of closing) groups.set(streamId, read);
  return { groups, held };
}

/** DD-5: the sources of held members' keys that the run's own Occurrences did not name. */
export async function loadHeldSources(
  store: EventStore,
  tenant: string,
  occurrences: readonly ObservedOccurrence[],
  known: ReadonlySet<string>,
): Promise<Map<string, SourceState>> {
  const ids = [...new Set(occurrences.flatMap((o) => authenticatingKey(o)?.sourceId ?? []))].filter(
    (id) => !known.has(id),
  );
  const loaded = await Promise.all(ids.map((id) => loadAggregate(store, sourceStream(tenant, id), sourceDecider)));
  return new Map(ids.map((id, i) => [id, loaded[i]!.state]));
}

/**
 * DD-5: the groups' joins and closes at the revisions read, so racing joiners and closers of one group serialize
 * (one close wins); then the decisions of members read for a closing group, each at the revision read.
 */
export function coalesceAppends(
  reads: CoalescingReads,
  groups: ReadonlyMap<string, CoalesceEvent[]>,
  held: ReadonlyMap<string, OccurrenceEvent[]>,
  metadata: (occurrence: ObservedOccurrence) => EventMetadata,
  countersMetadata: EventMetadata,
): TaggedAppend[] {
  const appends: TaggedAppend[] = [];
  for (const [streamId, events] of groups)
    appends.push({ append: appendOf(streamId, events, countersMetadata, reads.groups.get(streamId)!), decides: null });
  for (const [streamId, events] of held) {
    const loaded = reads.held.get(streamId)!;
    const occurrence = (loaded.state as ObservedState).occurrence;
    appends.push({
      append: appendOf(streamId, events, metadata(occurrence), loaded),
      decides: { occurrenceId: occurrence.occurrenceId, events },
    });
  }
  return appends;
}
