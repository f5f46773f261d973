import { deciderSpec } from '../shared/given-when-then.js';
import { IllegalStateError } from '../shared/errors.js';
import { type ConcurrencyCommand, concurrencyDecider, type ConcurrencyEvent, mergeSlotsTaken } from './concurrency.js';

const spec = deciderSpec(concurrencyDecider);
const AT = '2026-03-01T10:00:00.000Z';
const ids = { tenant: 'acme', missionId: 'm-1' };
const take = (executionId: string, limit = 2): ConcurrencyCommand => ({
  type: 'TakeSlot',
  ...ids,
  executionId,
  limit,
  at: AT,
});
const release = (executionId: string): ConcurrencyCommand => ({
  type: 'ReleaseSlot',
  ...ids,
  executionId,
  why: 'completed',
  at: AT,
});
const taken = (executionId: string, running: number): ConcurrencyEvent => ({
  type: 'ExecutionSlotsTaken',
  data: { ...ids, executionIds: [executionId], running, at: AT },
});
const released = (executionId: string, running: number): ConcurrencyEvent => ({
  type: 'ExecutionSlotReleased',
  data: { ...ids, executionId, running, at: AT, why: 'completed' },
});

describe('Mission concurrency slots (AD-2 maxConcurrent)', () => {
  it('takes a slot below the limit, carrying the new count', () =>
    spec
      .given([taken('e-1', 1)])
      .when(take('e-2'))
      .then([taken('e-2', 2)]));
  it('refuses at the limit (a racing admitter re-reads and is refused)', () =>
    spec
      .given([taken('e-1', 1), taken('e-2', 2)])
      .when(take('e-3'))
      .then('concurrency_limit'));
  it('a limit of 0 admits nothing', () => spec.given().when(take('e-1', 0)).then('concurrency_limit'));
  it('a release frees a slot for the next admission', () =>
    spec
      .given([taken('e-1', 1), taken('e-2', 2), released('e-1', 1)])
      .when(take('e-3'))
      .then([taken('e-3', 2)]));
  it('never counts below zero', () =>
    spec
      .given()
      .when(release('e-1'))
      .then([released('e-1', 0)]));
  it('slots taken one after another merge into one event with the same count', () => {
    const merged = mergeSlotsTaken([taken('e-1', 3), taken('e-2', 4)]);
    expect(merged).toEqual([
      { type: 'ExecutionSlotsTaken', data: { ...ids, executionIds: ['e-1', 'e-2'], running: 4, at: AT } },
    ]);
    expect(merged.reduce(concurrencyDecider.evolve, concurrencyDecider.initialState)).toEqual({ running: 4 });
    expect(mergeSlotsTaken([])).toEqual([]);
    expect(() => mergeSlotsTaken([taken('e-1', 1), released('e-1', 0)])).toThrow(IllegalStateError);
  });
  it('the last event alone is the state (what a tail-only loader relies on)', () => {
    const state = concurrencyDecider.evolve(concurrencyDecider.initialState, released('e-9', 4));
    expect(state).toEqual({ running: 4 });
  });
});
