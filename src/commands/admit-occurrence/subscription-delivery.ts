import type { EventMetadata, EventStore, RecordedEvent, StreamAppend } from '../../domain/ports/event-store.js';
import type { ObservedState } from '../../domain/admission/index.js';
import type { ObservedOccurrence } from '../../domain/occurrence/occurrence-events.js';
import { occurrenceDecider } from '../../domain/occurrence/occurrence.js';
import { executionStream, sourceStream, waitForStream } from '../../domain/shared/ids.js';
import { sourceDecider } from '../../domain/source/source.js';
import {
  type AcceptedEvent,
  contentMatches,
  endsSubscriptions,
  evolveWaitFor,
  initialWaitForState,
  matchInOrder,
  type SubscriptionEvent,
  subscriptionKey,
  type WaitForState,
} from '../../domain/subscription/index.js';
import { asDomainEvent, loadAggregate, loadAggregates, toNewEvent } from '../shared/aggregate.js';
import type { TrustedClock } from '../shared/trusted-clock.js';
import { write } from '../shared/write-kernel.js';
import { decisionMade, type DecisionMade } from './decision-notifier.js';

/** An Occurrence the admission processor read, with its observation's place in the log. */
export interface Accepted {
  streamId: string;
  /** The position of its OccurrenceObserved: its acceptance in the log. */
  observedAt: number;
  state: ObservedState;
  /** The occurrence stream's revision as read. */
  revision: number;
}

interface Target {
  state: WaitForState;
  revision: number;
  /** By subscription key, the log position of its registration. */
  registeredAt: Map<string, number>;
}

const WAITS_ON: ReadonlySet<string> = new Set(['webhook', 'poll']);

/** SU-1: the `waitfor-…` streams an accepted external or poll event can be delivered to. */
export function targetsOf(o: ObservedOccurrence): string[] {
  if (!WAITS_ON.has(o.kind)) return [];
  const sourceId = o.auth.sourceId;
  return [
    waitForStream(o.tenant, 'trigger', o.triggerId),
    ...(sourceId ? [waitForStream(o.tenant, 'source', sourceId)] : []),
  ];
}

/**
 * SU-1, before admission: a page of accepted events is matched against the subscriptions active at each one's
 * acceptance, in acceptance order (the page is in log order). A subscription counts for an event only when its
 * registration precedes the event in the log (`isAtOrBefore`, the store's read order), so one registered later
 * never receives it however late the match is computed. The matches and the `subscribed` decisions are appended
 * all or nothing, each `waitfor-…` stream at the revision read: a racing registration or deadline conflicts, and
 * the retry reads both again. Answers the decisions made; the rest go on to admission.
 */
export async function deliverToSubscriptions(
  store: EventStore,
  clock: TrustedClock,
  accepted: readonly Accepted[],
): Promise<DecisionMade[]> {
  const candidates = accepted.filter((a) => targetsOf(a.state.occurrence).length > 0);
  if (candidates.length === 0) return [];
  return write(store, async (attempt) => {
    const undecided = attempt === 1 ? candidates : await stillObserved(store, candidates);
    const targets = await readTargets(store, [...new Set(undecided.flatMap((a) => targetsOf(a.state.occurrence)))]);
    if (![...targets.values()].some((t) => t.state.active.length > 0)) return { appends: [], answer: () => [] };
    const now = (await clock.now()).toISOString();
    const inOrder = await acceptedEvents(store, undecided, targets);
    const matched = matchInOrder(inOrder, new Map([...targets].map(([id, t]) => [id, t.state])), now);
    if (matched.decisions.size === 0) return { appends: [], answer: () => [] };
    const appends: StreamAppend[] = [];
    for (const [streamId, events] of matched.events)
      appends.push(waitForAppend(streamId, events, targets.get(streamId)!.revision));
    const decided = undecided.filter((a) => matched.decisions.has(a.state.occurrence.occurrenceId));
    for (const a of decided) {
      const decision = matched.decisions.get(a.state.occurrence.occurrenceId)!;
      appends.push({ streamId: a.streamId, events: [toNewEvent(decision, metadataOf(a))], expected: a.revision });
    }
    const first = appends.length - decided.length;
    return {
      appends,
      answer: (positions) =>
        decided.flatMap((a, i) => {
          const made = decisionMade(
            a.state.occurrence.occurrenceId,
            [matched.decisions.get(a.state.occurrence.occurrenceId)!],
            positions[first + i]!,
          );
          return made === null ? [] : [made];
        }),
    };
  });
}

/** After a conflict: another processor may have decided some of them meanwhile. */
async function stillObserved(store: EventStore, accepted: readonly Accepted[]): Promise<Accepted[]> {
  const loaded = await Promise.all(accepted.map((a) => loadAggregate(store, a.streamId, occurrenceDecider)));
  return accepted.flatMap((a, i) => {
    const { state, revision } = loaded[i]!;
    return state.status === 'observed' ? [{ ...a, state, revision }] : [];
  });
}

async function readTargets(store: EventStore, streamIds: readonly string[]): Promise<Map<string, Target>> {
  const requests = streamIds.map((streamId) => ({ streamId, fromRevision: 0 }));
  const read: RecordedEvent[][] = store.readStreams
    ? await store.readStreams(requests)
    : await Promise.all(streamIds.map((id) => store.readStream(id)));
  return new Map(streamIds.map((id, i) => [id, foldTarget(read[i] ?? [])]));
}

function foldTarget(events: readonly RecordedEvent[]): Target {
  const registeredAt = new Map<string, number>();
  let state = initialWaitForState;
  for (const e of events) {
    const event = asDomainEvent<SubscriptionEvent>(e);
    if (event.type === 'SubscriptionRegistered')
      registeredAt.set(subscriptionKey(event.data.execution.executionId, event.data.subscriptionId), e.position);
    state = evolveWaitFor(state, event);
  }
  return { state, revision: events[events.length - 1]?.revision ?? -1, registeredAt };
}

/**
 * Each event with what matching needs: the verified source's correlation pointer (read only when a candidate
 * waits on a correlation key) and the candidates active at its acceptance (asked only for candidates): registered
 * before it in the log, by an execution that had not ended before it either.
 */
async function acceptedEvents(
  store: EventStore,
  accepted: readonly Accepted[],
  targets: ReadonlyMap<string, Target>,
): Promise<AcceptedEvent[]> {
  const states = new Map([...targets].map(([id, t]) => [id, t.state]));
  const pointers = await correlationPointers(store, accepted, states);
  const events = accepted.map((a) => {
    const { occurrence } = a.state;
    const correlationPointer = pointers.get(`${occurrence.tenant}\u0000${occurrence.auth.sourceId}`) ?? null;
    const base = { occurrence, correlationPointer, targets: targetsOf(occurrence) };
    const candidates = base.targets.map((streamId) => ({
      streamId,
      matching: targets.has(streamId) ? contentMatches({ ...base, targets: [streamId] }, states) : [],
    }));
    return { a, base, candidates };
  });
  const lifecycles = await executionHistories(
    store,
    events.flatMap(({ candidates }) => candidates.flatMap((c) => c.matching.map((s) => s.execution.executionId))),
  );
  return Promise.all(
    events.map(async ({ a, base, candidates }) => {
      const registeredBefore = new Set<string>();
      for (const { streamId, matching } of candidates)
        for (const s of matching) {
          const key = subscriptionKey(s.execution.executionId, s.subscriptionId);
          const at = targets.get(streamId)!.registeredAt.get(key);
          if (at === undefined || !(await store.isAtOrBefore(at, a.observedAt))) continue;
          if (await endedBefore(store, lifecycles.get(s.execution.executionId) ?? [], a.observedAt)) continue;
          registeredBefore.add(key);
        }
      return { ...base, registeredBefore };
    }),
  );
}

/** The execution streams of the waiting executions an event could go to (one read; few: matches are rare). */
async function executionHistories(
  store: EventStore,
  executionIds: readonly string[],
): Promise<Map<string, RecordedEvent[]>> {
  const ids = [...new Set(executionIds)];
  if (ids.length === 0) return new Map();
  const streamIds = ids.map(executionStream);
  const read: RecordedEvent[][] = store.readStreams
    ? await store.readStreams(streamIds.map((streamId) => ({ streamId, fromRevision: 0 })))
    : await Promise.all(streamIds.map((id) => store.readStream(id)));
  return new Map(ids.map((id, i) => [id, read[i] ?? []]));
}

/** SU-1: whether the execution had ended (completed, settled, dead-lettered, and not recovered) by `position`. */
async function endedBefore(store: EventStore, history: readonly RecordedEvent[], position: number): Promise<boolean> {
  const types: string[] = [];
  for (const event of history) if (await store.isAtOrBefore(event.position, position)) types.push(event.type);
  return endsSubscriptions(types);
}

/** CA-2: a correlation key is read with the pointer of the source that verified the delivery, as it stands now. */
async function correlationPointers(
  store: EventStore,
  accepted: readonly Accepted[],
  states: ReadonlyMap<string, WaitForState>,
): Promise<Map<string, string | null>> {
  const waitsOnKey = [...states.values()].some((s) => s.active.some((a) => a.match.correlationKey !== undefined));
  if (!waitsOnKey) return new Map();
  const verified = new Map<string, { tenant: string; sourceId: string }>();
  for (const { state } of accepted) {
    const { tenant, auth } = state.occurrence;
    if (auth.state === 'verified' && auth.sourceId)
      verified.set(`${tenant}\u0000${auth.sourceId}`, { tenant, sourceId: auth.sourceId });
  }
  const keys = [...verified.keys()];
  const loaded = await loadAggregates(
    store,
    keys.map((k) => ({
      streamId: sourceStream(verified.get(k)!.tenant, verified.get(k)!.sourceId),
      decider: sourceDecider,
    })),
  );
  return new Map(
    keys.map((k, i) => {
      const source = loaded[i]!.state;
      return [k, source.status === 'defined' ? (source.definition.correlationPointer ?? null) : null];
    }),
  );
}

function waitForAppend(streamId: string, events: readonly SubscriptionEvent[], revision: number): StreamAppend {
  const first = events[0]!.data;
  const metadata: EventMetadata = { tenant: first.tenant, actor: 'reveille:admission' };
  return {
    streamId,
    events: events.map((e) =>
      toNewEvent(e, e.type === 'SubscriptionMatched' ? { ...metadata, causationId: e.data.occurrenceId } : metadata),
    ),
    expected: revision < 0 ? 'no_stream' : revision,
  };
}

const metadataOf = ({ state }: Accepted): EventMetadata => ({
  tenant: state.occurrence.tenant,
  actor: 'reveille:admission',
  causationId: state.occurrence.occurrenceId,
  correlationId: state.occurrence.occurrenceId,
});
