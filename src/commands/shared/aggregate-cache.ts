import type { EventStore } from '../../domain/ports/event-store.js';

export interface CachedAggregate {
  state: unknown;
  revision: number;
  position: number;
}

const MAX_PER_STORE = 20_000;

/**
 * A load still reads the stream from the cached revision on, so the state is always current; the cache
 * saves re-folding history (a Mission's budget stream would cost O(n) per admission). Safe because
 * streams only grow and `evolve` never mutates the state it is given. Only `rememberedSlots` decides from an
 * entry without reading, for an append that compares-and-sets on it (mission-slots.ts).
 */
const caches = new WeakMap<EventStore, Map<string, CachedAggregate>>();

export function aggregateCache(store: EventStore): Map<string, CachedAggregate> {
  let cache = caches.get(store);
  if (!cache) {
    cache = new Map();
    caches.set(store, cache);
  }
  return cache;
}

/**
 * Least recently used entries leave first (Map keeps insertion order; a hit re-inserts). Never goes back: racing
 * loads and appends of one stream finish in any order, and a slower load's older state replacing a newer one made
 * `rememberedSlots` see a Mission's slot as free while an execution held it (a release then freed none: AD-2 leak).
 */
export function remember(cache: Map<string, CachedAggregate>, key: string, value: CachedAggregate): void {
  const known = cache.get(key);
  if (known && known.revision > value.revision) return;
  cache.delete(key);
  cache.set(key, value);
  if (cache.size > MAX_PER_STORE) cache.delete(cache.keys().next().value!);
}
