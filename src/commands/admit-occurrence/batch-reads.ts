import type { EventMetadata, EventStore, RecordedEvent, StreamAppend } from '../../domain/ports/event-store.js';
import { type BatchMemberRead, batchMemberOf, batchPolicyOf } from '../../domain/admission/index.js';
import {
  type BatchEvent,
  type BatchMember,
  type BatchPartitionState,
  initialBatchPartitionState,
} from '../../domain/batch/batch-events.js';
import { batchPartitionFolding, evolveBatchPartition, partitionOf } from '../../domain/batch/batch.js';
import type { ObservedOccurrence, OccurrenceEvent } from '../../domain/occurrence/occurrence-events.js';
import { occurrenceDecider } from '../../domain/occurrence/occurrence.js';
import { batchStream } from '../../domain/shared/ids.js';
import { WrongExpectedRevision } from '../../domain/shared/errors.js';
import type { TriggerState } from '../../domain/trigger/trigger.js';
import { aggregateCache } from '../shared/aggregate-cache.js';
import { asDomainEvent, type Loaded, loadAggregate, rememberAppended, toNewEvent } from '../shared/aggregate.js';
import { appendOf } from '../shared/write-kernel.js';
import type { TaggedAppend } from './decision-notifier.js';

/** BA-1: the partitions a decision reads, and the members of their open batches (a close decides them). */
export interface BatchReads {
  partitions: Map<string, Loaded<BatchPartitionState>>;
  members: Map<string, BatchMemberRead>;
}

export const noBatchReads = (): BatchReads => ({ partitions: new Map(), members: new Map() });

/**
 * A partition stream holds every batch it ever had, so it is never read whole: its last event names where the
 * current batch opened (`openedRevision`), and only that batch's events are read (at most `size` + 2).
 */
export async function loadBatchPartition(store: EventStore, streamId: string): Promise<Loaded<BatchPartitionState>> {
  if (aggregateCache(store).get(streamId)) return loadAggregate(store, streamId, batchPartitionFolding);
  const last = await store.readLast(streamId);
  if (!last) return { state: initialBatchPartitionState, revision: -1, position: 0 };
  const data = last.data as { seq?: number; openedRevision: number };
  let loaded: Loaded<BatchPartitionState>;
  if (last.type === 'BatchClosed') {
    const state = { seq: data.seq ?? 0, open: null, nextRevision: last.revision + 1 };
    loaded = { state, revision: last.revision, position: last.position };
  } else {
    const events = await store.readStream(streamId, { fromRevision: data.openedRevision });
    const opened = events[0]!.data as { seq: number };
    const from: BatchPartitionState = { seq: opened.seq - 1, open: null, nextRevision: data.openedRevision };
    const state = events.reduce((s, e) => evolveBatchPartition(s, asDomainEvent<BatchEvent>(e)), from);
    loaded = { state, revision: last.revision, position: last.position };
  }
  rememberAppended(store, streamId, loaded);
  return loaded;
}

/** Members' Occurrence streams, in one round trip where the store can; a member already decided is left out. */
export async function readMembers(store: EventStore, members: readonly BatchMember[]): Promise<BatchMemberRead[]> {
  const reads = members.map((m) => ({ streamId: m.streamId, fromRevision: 0 }));
  const streams: RecordedEvent[][] = store.readStreams
    ? await store.readStreams(reads)
    : await Promise.all(reads.map((r) => store.readStream(r.streamId)));
  return streams.flatMap((events, i) => {
    const state = events.reduce(
      (s, e) => occurrenceDecider.evolve(s, asDomainEvent<OccurrenceEvent>(e)),
      occurrenceDecider.initialState,
    );
    if (state.status !== 'observed') return [];
    return [batchMemberOf(state, members[i]!.streamId, events.length - 1)];
  });
}

/** BA-1: every partition the batching Occurrences name (by their bound revision), and their open batches' members. */
export async function readBatches(
  store: EventStore,
  occurrences: readonly ObservedOccurrence[],
  triggers: ReadonlyMap<string, TriggerState>,
): Promise<BatchReads> {
  const streamIds = new Set<string>();
  for (const o of occurrences) {
    const policy = batchPolicyOf(triggers.get(o.triggerId)!);
    const partition = policy ? partitionOf(policy, o.input) : null;
    if (partition?.ok) streamIds.add(batchStream(o.tenant, o.triggerId, o.triggerRevision, partition.key));
  }
  if (streamIds.size === 0) return noBatchReads();
  const ids = [...streamIds];
  const loaded = await Promise.all(ids.map((id) => loadBatchPartition(store, id)));
  const partitions = new Map(ids.map((id, i) => [id, loaded[i]!]));
  const members = await readMembers(
    store,
    loaded.flatMap((l) => l.state.open?.members ?? []),
  );
  const read = new Set(members.map((m) => m.occurrence.occurrenceId));
  // A member decided since its partition was read: a racing close moved that partition, so decide again.
  const moved = ids.findIndex((_, i) => loaded[i]!.state.open?.members.some((m) => !read.has(m.occurrenceId)));
  if (moved >= 0) throw new WrongExpectedRevision(ids[moved]!, loaded[moved]!.revision, loaded[moved]!.revision + 1);
  return { partitions, members: new Map(members.map((m) => [m.occurrence.occurrenceId, m])) };
}

/**
 * The partitions' events at the revisions read (racing admitters or closers of one partition serialize: one
 * wins, the other decides again), then the decisions of members that joined before this write, at theirs.
 */
export function batchAppends(
  reads: BatchReads,
  batches: ReadonlyMap<string, BatchEvent[]>,
  memberDecisions: ReadonlyMap<string, OccurrenceEvent[]>,
  decidedHere: ReadonlySet<string>,
  metadata: (occurrence: ObservedOccurrence) => EventMetadata,
  countersMetadata: EventMetadata,
): TaggedAppend[] {
  const appends: TaggedAppend[] = [];
  for (const [streamId, events] of batches)
    appends.push({
      append: appendOf(streamId, events, countersMetadata, reads.partitions.get(streamId)!),
      decides: null,
    });
  for (const [occurrenceId, events] of memberDecisions) {
    if (decidedHere.has(occurrenceId)) continue;
    const member = reads.members.get(occurrenceId)!;
    appends.push({
      append: {
        streamId: member.streamId,
        events: events.map((e) => toNewEvent(e, metadata(member.occurrence))),
        expected: member.expected!,
      },
      decides: { occurrenceId, events },
    });
  }
  return appends;
}
