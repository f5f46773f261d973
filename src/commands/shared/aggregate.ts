import type { EventMetadata, EventStore, NewEvent, RecordedEvent } from '../../adapters/eventstore/event-store.port.js';
import { WrongExpectedRevision } from '../../adapters/eventstore/event-store.port.js';
import type { Decider, DomainEvent } from '../../domain/shared/decider.js';
import { isRejection } from '../../domain/shared/result.js';
import { aggregateCache, remember } from './aggregate-cache.js';
import { CommandRejected } from './rejected.js';

export interface Loaded<S> {
  state: S;
  /** Stream revision of the last event, -1 when the stream does not exist. */
  revision: number;
  /** Global position of the last event, 0 when none. */
  position: number;
}

export const asDomainEvent = <E extends DomainEvent>(event: RecordedEvent): E => ({ type: event.type, data: event.data }) as E;

/** Current state of a stream: the cached fold (if any) plus every event appended since. */
export async function loadAggregate<S, E extends DomainEvent>(store: EventStore, streamId: string, decider: Pick<Decider<S, E, never>, 'initialState' | 'evolve'>): Promise<Loaded<S>> {
  const cache = aggregateCache(store);
  // One stream name always holds one aggregate type, so the stream id alone keys the cache.
  const cached = cache.get(streamId) as Loaded<S> | undefined;
  const events = await store.readStream(streamId, { fromRevision: (cached?.revision ?? -1) + 1 });
  if (cached && events.length === 0) return cached;
  const last = events[events.length - 1];
  const loaded: Loaded<S> = {
    state: events.reduce((state, e) => decider.evolve(state, asDomainEvent<E>(e)), cached?.state ?? decider.initialState),
    revision: last?.revision ?? cached?.revision ?? -1,
    position: last?.position ?? cached?.position ?? 0,
  };
  if (loaded.revision >= 0) remember(cache, streamId, loaded);
  return loaded;
}

export interface Handled<S, E> {
  state: S;
  events: E[];
  position: number;
}

const MAX_ATTEMPTS = 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Read → fold → decide → append at the revision read (STYLE §3). A concurrent writer makes the
 * append fail; deciding again on fresh state is safe because `decide` is pure, and the domain's own
 * expectedRevision check still turns a stale client into a conflict.
 */
export async function handleCommand<S, E extends DomainEvent, C>(
  store: EventStore,
  streamId: string,
  decider: Decider<S, E, C>,
  command: C,
  metadata: EventMetadata,
): Promise<Handled<S, E>> {
  for (let attempt = 1; ; attempt++) {
    const loaded = await loadAggregate<S, E>(store, streamId, decider);
    const decision = decider.decide(command, loaded.state);
    if (isRejection(decision)) throw new CommandRejected(decision);
    if (decision.length === 0) return { state: loaded.state, events: [], position: loaded.position };
    try {
      const appended = await store.append(streamId, decision.map((e) => toNewEvent(e, metadata)), loaded.revision < 0 ? 'no_stream' : loaded.revision);
      return { state: decision.reduce(decider.evolve, loaded.state), events: decision, position: appended.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevision) || attempt >= MAX_ATTEMPTS) throw error;
      // jittered backoff so a crowd of writers on one hot stream (a Mission's budget) spreads out
      await sleep(Math.random() * Math.min(2 ** attempt, 50));
    }
  }
}

export function toNewEvent(event: DomainEvent, metadata: EventMetadata): NewEvent {
  return { type: event.type, data: event.data, metadata };
}
