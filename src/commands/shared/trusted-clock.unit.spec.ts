import type { EventStore } from '../../domain/ports/event-store.js';
import { TrustedClock } from './trusted-clock.js';

const ROUND_TRIP_MS = 60;

/** A database whose clock is this machine's, read halfway through a slow round trip. */
const slowDatabase = {
  now: () =>
    new Promise<Date>((resolve) => {
      setTimeout(() => {
        const readAt = Date.now();
        setTimeout(() => resolve(new Date(readAt)), ROUND_TRIP_MS / 2);
      }, ROUND_TRIP_MS / 2);
    }),
} as unknown as EventStore;

describe('SC-6 the trusted clock, the database clock without a round trip per read', () => {
  it('SC-4 is never behind the database, however slow the round trip that sampled it (at most that far ahead)', async () => {
    const clock = new TrustedClock(slowDatabase);
    for (let i = 0; i < 3; i++) {
      const estimate = (await clock.now()).getTime();
      const database = Date.now();
      expect(estimate).toBeGreaterThanOrEqual(database);
      expect(estimate).toBeLessThanOrEqual(database + ROUND_TRIP_MS + 20);
    }
  });
});
