import type { Rejection } from './result.js';

/** A stored domain event as the deciders produce it; the handler adds schemaVersion and metadata. */
export interface DomainEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
}

/** Plain functions over immutable state. */
export interface Decider<S, E, C> {
  initialState: S;
  evolve: (state: S, event: E) => S;
  decide: (command: C, state: S) => E[] | Rejection;
}

export function fold<S, E>(decider: Pick<Decider<S, E, never>, 'initialState' | 'evolve'>, events: readonly E[]): S {
  return events.reduce(decider.evolve, decider.initialState);
}
