import type { EventStore } from '../../domain/ports/event-store.js';
import type { ObservedOccurrence } from '../../domain/occurrence/occurrence-events.js';
import { observedAtGeneration } from '../../domain/occurrence/observed-occurrence.js';
import { occurrenceStream } from '../../domain/shared/ids.js';

/**
 * DD-4: the latest generation of an identity whose first use (generation 0) exists. Generations are
 * contiguous (the next one starts only once the latest expired, and expiry never ends), so galloping then
 * bisecting finds it in O(log n) existence reads however often the identity was reused.
 */
export async function latestGeneration(
  store: Pick<EventStore, 'readStream'>,
  observed: ObservedOccurrence,
): Promise<number> {
  const exists = async (generation: number) =>
    (await store.readStream(occurrenceStream(observedAtGeneration(observed, generation).dedupeHash), { maxCount: 1 }))
      .length > 0;
  let low = 0;
  let high = 1;
  while (await exists(high)) {
    low = high;
    high *= 2;
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (await exists(middle)) low = middle;
    else high = middle;
  }
  return low;
}
