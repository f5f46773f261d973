import type { EventMetadata, EventStore, StreamAppend } from '../../domain/ports/event-store.js';
import type { PollFetch } from '../../domain/ports/poll-connector.js';
import { deriveDeliveryKey, occurrenceIdFor, pollIdentity } from '../../domain/dedupe/dedupe-identity.js';
import {
  deliveredEvidence,
  observedAtGeneration,
  observedOccurrence,
  observingTrigger,
} from '../../domain/occurrence/observed-occurrence.js';
import { occurrenceDecider, type OccurrenceState, useOf } from '../../domain/occurrence/occurrence.js';
import { generationOf, reusable } from '../../domain/dedupe/dedupe-window.js';
import { latestGeneration } from '../shared/dedupe-generations.js';
import type { OccurrenceEvent } from '../../domain/occurrence/occurrence-events.js';
import { type PollEvent, type PollState, pollStateFor } from '../../domain/poll/poll-events.js';
import type { PollItem } from '../../domain/poll/poll-page.js';
import { type CandidateItem, pollDecider } from '../../domain/poll/poll.js';
import { occurrenceStream, pollStream, triggerStream } from '../../domain/shared/ids.js';
import type { DefinedTrigger } from '../../domain/trigger/trigger.js';
import { type Loaded, loadAggregate, loadAggregates, loadLatest, toNewEvent } from '../shared/aggregate.js';
import { aggregateCache } from '../shared/aggregate-cache.js';
import { triggerDecider, type TriggerState } from '../../domain/trigger/trigger.js';
import { accepted, appendOf, type BatchAppender, expectedOf, write } from '../shared/write-kernel.js';

export const POLLER_ACTOR = 'reveille:poller';

export type PollTrigger = DefinedTrigger & { definition: { poll: NonNullable<DefinedTrigger['definition']['poll']> } };

export const isPollTrigger = (trigger: DefinedTrigger): trigger is PollTrigger =>
  trigger.definition.type === 'poll' && trigger.definition.poll !== null;

export interface RecordedPoll {
  /** `stale`: the stream moved since the fetch was based on it; nothing was recorded. */
  outcome: 'recorded' | 'stale';
  events: PollEvent[];
  state: PollState;
  /** The Occurrences this poll created, in acceptance order. */
  occurrenceIds: string[];
  position: number;
}

/** A poll stream's every event carries the whole state: the last one is read, never the history. */
export const loadPollState = (store: EventStore, tenant: string, triggerId: string): Promise<Loaded<PollState>> =>
  loadLatest(store, pollStream(tenant, triggerId), pollDecider);

/**
 * The Trigger and its poll state, in one round trip once the poll stream is known here (its last event alone
 * the first time: every poll event carries the whole state).
 */
export async function loadPollInputs(
  store: EventStore,
  tenant: string,
  triggerId: string,
): Promise<{ trigger: TriggerState; poll: Loaded<PollState> }> {
  const stream = pollStream(tenant, triggerId);
  if (!aggregateCache(store).has(stream)) {
    const [trigger, poll] = await Promise.all([
      loadAggregate(store, triggerStream(tenant, triggerId), triggerDecider),
      loadPollState(store, tenant, triggerId),
    ]);
    return { trigger: trigger.state, poll };
  }
  const [trigger, poll] = await loadAggregates(store, [
    { streamId: triggerStream(tenant, triggerId), decider: triggerDecider },
    { streamId: stream, decider: pollDecider },
  ] as const);
  return { trigger: trigger.state as TriggerState, poll: poll as Loaded<PollState> };
}

export interface PollBasis {
  /** The poll state the fetch was based on: the first attempt records on it, a conflict reads it again. */
  loaded: Loaded<PollState>;
  /** The database clock (SC-6); by default read from the store. */
  now?: () => Promise<Date>;
}

/**
 * PO-2/PO-3: one append, all or nothing on the SQL stores: the Occurrence of every accepted item (each at
 * "no stream", its identity Trigger + item id) and the poll event at the revision read. A racing writer fails the
 * append; the retry re-reads, and a fetch based on a state no longer current records nothing.
 */
export function recordPoll(
  store: EventStore,
  trigger: PollTrigger,
  basis: PollBasis,
  fetched: PollFetch,
  /** All or nothing, each stream in batch order: the Occurrences reach admission in the page's order (PO-2). */
  append?: BatchAppender,
): Promise<RecordedPoll> {
  const { tenant, triggerId } = trigger;
  const stream = pollStream(tenant, triggerId);
  const basedOnSeq = basis.loaded.state.seq;
  const clock = basis.now ?? (() => store.now());
  return write<RecordedPoll>(
    store,
    async (attempt) => {
      // A stream that moved since the fetch fails the append at its revision; the retry reads it again.
      const [now, loaded] = await Promise.all([
        clock(),
        attempt === 1 ? basis.loaded : loadPollState(store, tenant, triggerId),
      ]);
      const at = now.toISOString();
      const candidates = fetched.ok ? await candidatesOf(store, trigger, fetched.page.items, at) : [];
      const events = accepted(
        pollDecider.decide(
          {
            type: 'RecordPoll',
            tenant,
            triggerId,
            life: trigger.createdRevision,
            triggerRevision: trigger.revision,
            url: trigger.definition.poll.url,
            at,
            basedOnSeq,
            onInvalidItem: trigger.definition.poll.onInvalidItem,
            outcome: fetched.ok
              ? { ok: true, nextCursor: fetched.page.nextCursor, items: candidates.map((c) => c.candidate) }
              : { ok: false, failure: fetched.failure },
          },
          loaded.state,
        ),
      );
      if (events.length === 0)
        return {
          appends: [],
          answer: () => ({
            outcome: 'stale' as const,
            events,
            state: pollStateFor(loaded.state, trigger.createdRevision),
            occurrenceIds: [],
            position: loaded.position,
          }),
        };
      const state = events.reduce(pollDecider.evolve, loaded.state);
      const metadata: EventMetadata = { tenant, actor: POLLER_ACTOR, correlationId: `poll:${triggerId}:${state.seq}` };
      const occurrences = occurrenceWrites(trigger, events, candidates, at);
      const appends: StreamAppend[] = [
        ...occurrences.map((o) => ({
          streamId: o.streamId,
          events: o.events.map((e) => toNewEvent(e, { ...metadata, causationId: `poll:${triggerId}:${o.externalId}` })),
          expected: o.expected,
        })),
        appendOf(stream, events, metadata, loaded),
      ];
      return {
        appends,
        answer: (positions) => ({
          outcome: 'recorded' as const,
          events,
          state,
          occurrenceIds: occurrences.flatMap((o) =>
            o.events.flatMap((e) => (e.type === 'OccurrenceObserved' ? [e.data.occurrenceId] : [])),
          ),
          position: positions[positions.length - 1] ?? loaded.position,
        }),
      };
    },
    { append },
  );
}

interface Candidate {
  candidate: CandidateItem;
  item: PollItem;
  key: { key: string; subject: string | null } | null;
  /**
   * DD-4: the use of the item's identity an accepted item starts (0 unless an earlier use expired), or the one a
   * repeat resolves against.
   */
  generation: number;
  /** A repeat's recorded Occurrence (the latest use of its identity): a payload_conflict is recorded on it (OC-4). */
  recorded: Loaded<OccurrenceState> | null;
}

/**
 * Enrich, then decide: each item's identity (DD-1, same scope as external events) and whether it is recorded —
 * as the next use of its identity when the latest one is decided and its dedupe window passed by `at` (DD-4).
 */
async function candidatesOf(
  store: EventStore,
  trigger: PollTrigger,
  items: readonly PollItem[],
  at: string,
): Promise<Candidate[]> {
  const candidates: Candidate[] = items.map((item) => {
    const invalid = (problem: string): Candidate => ({
      candidate: {
        index: item.index,
        itemId: item.itemId,
        problem,
        occurrenceId: null,
        observed: false,
        digest: item.digest,
        recordedDigest: null,
      },
      item,
      key: null,
      generation: 0,
      recorded: null,
    });
    if (item.problem !== null || item.itemId === null) return invalid(item.problem ?? 'the item has no id');
    const derived = deriveDeliveryKey(trigger.definition.dedupe, item.itemId, item.value);
    if (!derived.ok) return invalid(`${derived.message} (${derived.pointer})`);
    const identity = pollIdentity(trigger.tenant, trigger, derived.key, derived.subject);
    return {
      candidate: {
        index: item.index,
        itemId: item.itemId,
        problem: null,
        occurrenceId: occurrenceIdFor(identity),
        observed: false,
        digest: item.digest,
        recordedDigest: null,
      },
      item,
      key: { key: derived.key, subject: derived.subject },
      generation: 0,
      recorded: null,
    };
  });
  const identified = candidates.filter((c) => c.candidate.occurrenceId !== null);
  const streams = identified.map((c) => occurrenceStream(c.candidate.occurrenceId!));
  const reads = store.readStreams
    ? await store.readStreams(streams.map((streamId) => ({ streamId, fromRevision: 0 })))
    : await Promise.all(streams.map((streamId) => store.readStream(streamId, { maxCount: 1 })));
  identified.forEach((c, i) => (c.candidate.observed = (reads[i]?.length ?? 0) > 0));
  await Promise.all(identified.filter((c) => c.candidate.observed).map((c) => reuseIfExpired(store, trigger, c, at)));
  return candidates;
}

/**
 * DD-4: an item seen before is new again only once its identity's latest Occurrence is decided and out of its window;
 * until then it is a repeat of that Occurrence, whose payload it is compared with (OC-4).
 */
async function reuseIfExpired(store: EventStore, trigger: PollTrigger, c: Candidate, at: string): Promise<void> {
  const probe = observedOf(trigger, c, at);
  const latest = observedAtGeneration(probe, await latestGeneration(store, probe));
  const loaded = await loadAggregate(store, occurrenceStream(latest.dedupeHash), occurrenceDecider);
  const generation = generationOf(latest.dedupeIdentity);
  if (reusable(useOf(loaded.state), at, trigger.definition.dedupe.windowSeconds)) {
    c.generation = generation + 1;
    c.candidate.observed = false;
    c.candidate.occurrenceId = observedAtGeneration(probe, c.generation).occurrenceId;
  } else {
    c.generation = generation;
    c.recorded = loaded;
    c.candidate.occurrenceId = latest.occurrenceId;
    c.candidate.recordedDigest = loaded.state.status === 'absent' ? null : loaded.state.occurrence.payloadDigest;
  }
}

function observedOf(trigger: PollTrigger, candidate: Candidate, at: string) {
  const identity = pollIdentity(trigger.tenant, trigger, candidate.key!.key, candidate.key!.subject);
  const observed = observedOccurrence({
    kind: 'poll',
    trigger: observingTrigger(trigger),
    dedupeIdentity: identity,
    evidence: deliveredEvidence(candidate.item.value),
    observedAt: at,
    externalId: candidate.item.itemId,
  });
  return observedAtGeneration(observed, candidate.generation);
}

/** What one poll writes to one Occurrence stream. */
interface OccurrenceWrite {
  streamId: string;
  externalId: string;
  events: OccurrenceEvent[];
  expected: StreamAppend['expected'];
}

/**
 * The Occurrence of each accepted item (at "no stream"), in page order, and each payload_conflict recorded on the
 * Occurrence it repeats, decided by the Occurrence decider as a webhook redelivery's is (OC-4: once per distinct
 * payload, bounded) — at the revision read, or after this page's own observation of it. The item alone is the
 * Occurrence's input: the cursor never is (PO-1).
 */
function occurrenceWrites(
  trigger: PollTrigger,
  events: readonly PollEvent[],
  candidates: readonly Candidate[],
  at: string,
): OccurrenceWrite[] {
  const byIndex = new Map(candidates.map((c) => [c.item.index, c]));
  const completed = events.find((e) => e.type === 'PollCompleted');
  if (!completed) return [];
  const writes = new Map<string, OccurrenceWrite & { state: OccurrenceState }>();
  for (const disposition of completed.data.items) {
    if (disposition.disposition !== 'accepted' && disposition.disposition !== 'payload_conflict') continue;
    const candidate = byIndex.get(disposition.index)!;
    const observed = { ...observedOf(trigger, candidate, at), externalId: disposition.itemId };
    const streamId = occurrenceStream(observed.dedupeHash);
    const write = writes.get(streamId) ?? {
      streamId,
      externalId: disposition.itemId,
      events: [],
      expected: candidate.recorded ? expectedOf(candidate.recorded) : ('no_stream' as const),
      state: candidate.recorded?.state ?? occurrenceDecider.initialState,
    };
    const decided = accepted(occurrenceDecider.decide({ type: 'ObserveOccurrence', ...observed }, write.state));
    write.events.push(...decided);
    write.state = decided.reduce(occurrenceDecider.evolve, write.state);
    writes.set(streamId, write);
  }
  return [...writes.values()].filter((w) => w.events.length > 0).map(({ state: _, ...write }) => write);
}
