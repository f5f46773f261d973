import { aggregateCache, remember } from './aggregate-cache.js';
import type { EventStore } from '../../domain/ports/event-store.js';

describe('aggregate cache', () => {
  const store = {} as EventStore;

  it('AD-2 a slower load finishing after a newer append never puts the older state back', () => {
    const cache = aggregateCache(store);
    remember(cache, 'stripe-a', { state: { running: 1 }, revision: 4, position: 40 });
    remember(cache, 'stripe-a', { state: { running: 0 }, revision: 3, position: 30 });
    expect(cache.get('stripe-a')).toEqual({ state: { running: 1 }, revision: 4, position: 40 });
  });

  it('a newer revision replaces the one remembered, and an unknown stream is remembered as given', () => {
    const cache = aggregateCache(store);
    remember(cache, 'stripe-b', { state: { running: 0 }, revision: -1, position: 0 });
    remember(cache, 'stripe-b', { state: { running: 2 }, revision: 0, position: 7 });
    expect(cache.get('stripe-b')).toEqual({ state: { running: 2 }, revision: 0, position: 7 });
  });
});
