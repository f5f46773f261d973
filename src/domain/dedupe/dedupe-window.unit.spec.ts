import fc from 'fast-check';
import { dedupeIdentityHash, webhookIdentity } from './dedupe-identity.js';
import { atGeneration, generationOf, retentionSeconds, reusable } from './dedupe-window.js';

const trigger = { triggerId: 't-1', dedupeEpoch: 1, definition: { dedupe: { strategy: 'delivery-id@1' as const } } };
const identity = webhookIdentity('acme', trigger, 'gh', 'd-1', null);
const at = (ms: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + ms).toISOString();

describe('DD-4 dedupe windows', () => {
  it('DD-4 DD-2 retention is the window, never shorter than the auth replay horizon', () => {
    expect(retentionSeconds(1, 600)).toBe(600);
    expect(retentionSeconds(604_800, 600)).toBe(604_800);
    expect(retentionSeconds(60, 0)).toBe(60);
  });

  it('DD-4 absent or undecided never expires; decided expires exactly at decision + retention', () => {
    expect(reusable({ status: 'absent' }, at(10_000_000), 1)).toBe(false);
    expect(reusable({ status: 'observed' }, at(10_000_000), 1)).toBe(false);
    const decided = { status: 'decided' as const, decidedAt: at(0) };
    expect(reusable(decided, at(59_999), 60)).toBe(false);
    expect(reusable(decided, at(60_000), 60)).toBe(true);
    // A clock before the decision (never by the database clock, but a forged time must not open it).
    expect(reusable(decided, at(-1), 0)).toBe(false);
    expect(reusable({ status: 'decided', decidedAt: 'not a time' }, at(1e9), 1)).toBe(false);
  });

  it('DD-4 property: within the retention a decided identity is never reusable, after it always', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 31_536_000 }), fc.integer({ min: 0, max: 2 * 31_536_000_000 }), (r, ms) => {
        expect(reusable({ status: 'decided', decidedAt: at(0) }, at(ms), r)).toBe(ms >= r * 1000);
      }),
    );
  });

  it('DD-1 DD-4 generation 0 is the identity as recorded before windows (same hash); each later one names another stream', () => {
    expect(atGeneration(identity, 0)).toEqual(identity);
    expect(dedupeIdentityHash(atGeneration(identity, 0))).toBe(dedupeIdentityHash(identity));
    const hashes = new Set([0, 1, 2, 3].map((g) => dedupeIdentityHash(atGeneration(identity, g))));
    expect(hashes.size).toBe(4);
    expect(generationOf(atGeneration(atGeneration(identity, 5), 2))).toBe(2);
    expect(atGeneration(atGeneration(identity, 5), 0)).toEqual(identity);
    expect(() => atGeneration(identity, -1)).toThrow();
    expect(() => atGeneration(identity, 1.5)).toThrow();
  });
});
