import { ensureBuilt } from '../../scripts/build-if-needed.js';
import { hostileFuzz } from '../../bench/chaos/hostile-fuzz.js';
import { killStorm } from '../../bench/chaos/kill-storm.js';

/** The short form of `npm run chaos` (RELIABILITY.md has the long one's figures). */
describe('chaos, short form (WH-7, SEC-4)', () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it('WH-7 OC-3 AD-1 300 signed deliveries through two SIGKILLs: none lost, none duplicated, all decided', async () => {
    const storm = await killStorm({ deliveries: 300, kills: 2, concurrency: 8 });
    expect(storm).toMatchObject({
      acked: 300,
      kills: 2,
      lost: 0,
      duplicated: 0,
      undecided: 0,
      serverErrors: 0,
      gaveUp: 0,
    });
    // The kills really cut traffic: producers saw refused connections and retried through them.
    expect(storm.connectionErrors).toBeGreaterThan(0);
  }, 180_000);

  it('SEC-4 WH-1 hostile content over ingress and REST answers 4xx, never 5xx', async () => {
    const fuzz = await hostileFuzz({ rounds: 1 });
    expect(fuzz.requests).toBeGreaterThan(40);
    expect(fuzz.serverErrors).toBe(0);
    expect(Object.keys(fuzz.statuses).every((status) => status.startsWith('4'))).toBe(true);
  }, 120_000);
});
