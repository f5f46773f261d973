import type { EventMetadata, EventStore, NewEvent, RecordedEvent, StreamRead } from '../../domain/ports/event-store.js';
import type { Decider, DomainEvent } from '../../domain/shared/decider.js';
import { aggregateCache, remember } from './aggregate-cache.js';

export interface Loaded<S> {
  state: S;
  /** Stream revision of the last event, -1 when the stream does not exist. */
  revision: number;
  position: number;
}

export const asDomainEvent = <E extends DomainEvent>(event: RecordedEvent): E =>
  ({ type: event.type, data: event.data }) as E;

type Folding<S, E extends DomainEvent> = Pick<Decider<S, E, never>, 'initialState' | 'evolve'>;

export async function loadAggregate<S, E extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Folding<S, E>,
): Promise<Loaded<S>> {
  // One stream name always holds one aggregate type, so the stream id alone keys the cache.
  const cached = aggregateCache(store).get(streamId) as Loaded<S> | undefined;
  const events = await store.readStream(streamId, { fromRevision: (cached?.revision ?? -1) + 1 });
  return fold(store, streamId, decider, cached, events);
}

/** For streams whose every event carries the whole state: the last event alone, never the history. */
export async function loadLatest<S, E extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Folding<S, E>,
): Promise<Loaded<S>> {
  const cached = aggregateCache(store).get(streamId) as Loaded<S> | undefined;
  if (cached) return loadAggregate(store, streamId, decider);
  const last = await store.readLast(streamId);
  return fold(store, streamId, decider, undefined, last ? [last] : []);
}

/** Several aggregates at once: one round trip where the store can read several streams together. */
export async function loadAggregates<T extends readonly { streamId: string; decider: Folding<any, any> }[]>(
  store: EventStore,
  wanted: T,
): Promise<{ [K in keyof T]: Loaded<T[K]['decider']['initialState']> }> {
  if (!store.readStreams || new Set(wanted.map((w) => w.streamId)).size !== wanted.length) {
    return Promise.all(wanted.map((w) => loadAggregate(store, w.streamId, w.decider))) as never;
  }
  const cache = aggregateCache(store);
  const cached = wanted.map((w) => cache.get(w.streamId) as Loaded<unknown> | undefined);
  const read = await store.readStreams(
    wanted.map((w, i) => ({ streamId: w.streamId, fromRevision: (cached[i]?.revision ?? -1) + 1 })),
  );
  return wanted.map((w, i) => fold(store, w.streamId, w.decider, cached[i], read[i]!)) as never;
}

/** Reads for aggregates read together with other streams: each from its cached revision on, folded by `foldRead`. */
export function cachedRead(store: EventStore, streamId: string): StreamRead {
  const cached = aggregateCache(store).get(streamId);
  return { streamId, fromRevision: (cached?.revision ?? -1) + 1 };
}

/** Folds what `cachedRead`'s request returned onto the cached state. */
export function foldRead<S, E extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Folding<S, E>,
  events: RecordedEvent[],
): Loaded<S> {
  return fold(store, streamId, decider, aggregateCache(store).get(streamId) as Loaded<S> | undefined, events);
}

function fold<S, E extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Folding<S, E>,
  cached: Loaded<S> | undefined,
  events: RecordedEvent[],
): Loaded<S> {
  const cache = aggregateCache(store);
  if (cached && events.length === 0) return cached;
  const last = events[events.length - 1];
  const loaded: Loaded<S> = {
    state: events.reduce(
      (state, e) => decider.evolve(state, asDomainEvent<E>(e)),
      cached?.state ?? decider.initialState,
    ),
    revision: last?.revision ?? cached?.revision ?? -1,
    position: last?.position ?? cached?.position ?? 0,
  };
  if (loaded.revision >= 0) remember(cache, streamId, loaded);
  return loaded;
}

/** The state a writer decided on, evolved by what it appended, is current: the next load skips those events. */
export function rememberAppended<S>(store: EventStore, streamId: string, loaded: Loaded<S>): void {
  remember(aggregateCache(store), streamId, loaded);
}

export function toNewEvent(event: DomainEvent, metadata: EventMetadata): NewEvent {
  return { type: event.type, data: event.data, metadata };
}
