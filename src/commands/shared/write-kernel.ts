import type { EventMetadata, EventStore, RecordedEvent, StreamAppend } from '../../domain/ports/event-store.js';
import type { Decider, DomainEvent } from '../../domain/shared/decider.js';
import { CommandRejected } from '../../domain/shared/errors.js';
import { isRejection, type Rejection } from '../../domain/shared/result.js';
import { asDomainEvent, type Loaded, loadAggregate, toNewEvent } from './aggregate.js';
import { requestOf, type RequestIdentity } from './command-context.js';
import { findOwnWrite } from './own-write.js';
import { reportReplayedWrite } from './replayed-writes.js';
import { retryOnConflict, type RetryOptions } from './retry-on-conflict.js';

export interface Write<R> {
  appends: readonly StreamAppend[];
  answer: (positions: readonly number[]) => R;
}

/**
 * The one write path, so every handler gets the same concurrency control: another writer moving a
 * stream in between fails the append with WrongExpectedRevision, and `attempt` runs again on fresh
 * state, which is safe because it decides only from what it reads.
 */
export function write<R>(
  store: EventStore,
  attempt: (attemptNumber: number) => Promise<Write<R>>,
  options?: RetryOptions & { append?: BatchAppender },
): Promise<R> {
  const append = options?.append ?? ((batch: readonly StreamAppend[]) => appendAll(store, batch));
  return retryOnConflict(async (attemptNumber) => {
    const decided = await attempt(attemptNumber);
    const positions = decided.appends.length === 0 ? [] : await append(decided.appends);
    return decided.answer(positions);
  }, options);
}

/**
 * Appends a batch and answers each append's last position; throws WrongExpectedRevision when a stream moved.
 * The default is `appendAll`; a writer whose streams must reach the log in batch order passes its own.
 */
export type BatchAppender = (batch: readonly StreamAppend[]) => Promise<number[]>;

export interface Handled<S, E> {
  state: S;
  events: E[];
  position: number;
}

export function handleCommand<S, E extends DomainEvent, C>(
  store: EventStore,
  streamId: string,
  decider: Decider<S, E, C>,
  command: C,
  metadata: EventMetadata,
): Promise<Handled<S, E>> {
  const request = requestOf(metadata);
  return write(store, async () => {
    const { loaded, own } = request
      ? await loadWithOwnWrite<S, E>(store, streamId, decider, request)
      : { loaded: await loadAggregate<S, E>(store, streamId, decider), own: null };
    if (own) {
      // This request already committed here (its answer was lost): the same answer, never a second effect
      reportReplayedWrite();
      return { appends: [], answer: () => own };
    }
    const events = accepted(decider.decide(command, loaded.state));
    return {
      appends: events.length === 0 ? [] : [appendOf(streamId, events, metadata, loaded)],
      answer: ([position]) => ({
        state: events.reduce(decider.evolve, loaded.state),
        events,
        position: position ?? loaded.position,
      }),
    };
  });
}

/**
 * The whole stream, past the aggregate cache (which may hold a state the events of an earlier run are
 * folded into), and what this request's own events left behind: the state right after them, them, and
 * the position of the last (decision 9, docs/architecture.md).
 */
async function loadWithOwnWrite<S, E extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Pick<Decider<S, E, never>, 'initialState' | 'evolve'>,
  request: RequestIdentity,
): Promise<{ loaded: Loaded<S>; own: Handled<S, E> | null }> {
  const recorded = await store.readStream(streamId);
  const fold = (events: readonly RecordedEvent[]) =>
    events.reduce((state, e) => decider.evolve(state, asDomainEvent<E>(e)), decider.initialState);
  const last = recorded[recorded.length - 1];
  const loaded = { state: fold(recorded), revision: last?.revision ?? -1, position: last?.position ?? 0 };
  const own = findOwnWrite(recorded, request);
  return {
    loaded,
    own: own && {
      state: fold(own.through),
      events: own.own.map((e) => asDomainEvent<E>(e)),
      position: own.position,
    },
  };
}

export function accepted<E>(decision: E[] | Rejection): E[] {
  if (isRejection(decision)) throw new CommandRejected(decision);
  return decision;
}

export function appendOf(
  streamId: string,
  events: readonly DomainEvent[],
  metadata: EventMetadata,
  read: Pick<Loaded<unknown>, 'revision'>,
): StreamAppend {
  return { streamId, events: events.map((e) => toNewEvent(e, metadata)), expected: expectedOf(read) };
}

export const expectedOf = (read: Pick<Loaded<unknown>, 'revision'>): StreamAppend['expected'] =>
  read.revision < 0 ? 'no_stream' : read.revision;

/** All or nothing where the store can (one round trip), otherwise one by one in the order given. */
export async function appendAll(store: EventStore, batch: readonly StreamAppend[]): Promise<number[]> {
  if (batch.length > 1 && store.appendStreams) return store.appendStreams(batch);
  const positions: number[] = [];
  for (const { streamId, events, expected } of batch)
    positions.push((await store.append(streamId, events, expected)).position);
  return positions;
}
