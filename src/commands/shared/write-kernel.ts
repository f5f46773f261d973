import type { EventMetadata, EventStore, StreamAppend } from '../../domain/ports/event-store.js';
import type { Decider, DomainEvent } from '../../domain/shared/decider.js';
import { CommandRejected } from '../../domain/shared/errors.js';
import { isRejection, type Rejection } from '../../domain/shared/result.js';
import { type Loaded, loadAggregate, toNewEvent } from './aggregate.js';
import { retryOnConflict, type RetryOptions } from './retry-on-conflict.js';

/**
 * What one attempt decided: the appends to make, every stream at the revision it was read, and the
 * answer once they are made (given each stream's last global position). No appends: nothing changed,
 * and the answer is given at once (with no positions).
 */
export interface Write<R> {
  appends: readonly StreamAppend[];
  answer: (positions: readonly number[]) => R;
}

/**
 * The write path (STYLE 3, 8): `attempt` reads and decides, the kernel appends what it decided, all
 * or nothing. Another writer moving a stream in between fails the append with WrongExpectedRevision;
 * `attempt` then runs again on fresh state, which is safe because it decides only from what it reads.
 */
export function write<R>(
  store: EventStore,
  attempt: (attemptNumber: number) => Promise<Write<R>>,
  options?: RetryOptions,
): Promise<R> {
  return retryOnConflict(async (attemptNumber) => {
    const decided = await attempt(attemptNumber);
    const positions = decided.appends.length === 0 ? [] : await appendAll(store, decided.appends);
    return decided.answer(positions);
  }, options);
}

export interface Handled<S, E> {
  state: S;
  events: E[];
  position: number;
}

/** Read → fold → decide → append for one stream: the kernel with a decider over that stream. */
export function handleCommand<S, E extends DomainEvent, C>(
  store: EventStore,
  streamId: string,
  decider: Decider<S, E, C>,
  command: C,
  metadata: EventMetadata,
): Promise<Handled<S, E>> {
  return write(store, async () => {
    const loaded = await loadAggregate<S, E>(store, streamId, decider);
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

/** The events of a decision, or the rejection thrown as the domain error the HTTP layer maps. */
export function accepted<E>(decision: E[] | Rejection): E[] {
  if (isRejection(decision)) throw new CommandRejected(decision);
  return decision;
}

/** A stream's events, to be appended at the revision the stream was read at. */
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

/**
 * Appends to several streams, all or nothing where the store can (one round trip), otherwise one by
 * one in the order given; returns the position of each stream's last event.
 */
export async function appendAll(store: EventStore, batch: readonly StreamAppend[]): Promise<number[]> {
  if (batch.length > 1 && store.appendStreams) return store.appendStreams(batch);
  const positions: number[] = [];
  for (const { streamId, events, expected } of batch)
    positions.push((await store.append(streamId, events, expected)).position);
  return positions;
}
