import fc from 'fast-check';
import { webhookIdentity } from '../../domain/dedupe/dedupe-identity.js';
import { observedAtGeneration, observedOccurrence } from '../../domain/occurrence/observed-occurrence.js';
import { occurrenceStream } from '../../domain/shared/ids.js';
import { latestGeneration } from './dedupe-generations.js';

const trigger = { triggerId: 't-1', dedupeEpoch: 1, definition: { dedupe: { strategy: 'delivery-id@1' as const } } };
const observed = observedOccurrence({
  kind: 'webhook',
  trigger: { triggerId: 't-1', triggerRevision: 1, missionId: 'm-1', classification: 'internal' },
  dedupeIdentity: webhookIdentity('acme', trigger, 'gh', 'd-1', null),
  evidence: { input: {}, resourceRefs: [], payloadDigest: 'x' },
  observedAt: '2026-01-01T00:00:00.000Z',
});

/** A store holding generations 0..latest of the identity: only existence is read. */
function storeWith(latest: number) {
  const streams = new Set(
    Array.from({ length: latest + 1 }, (_, g) => occurrenceStream(observedAtGeneration(observed, g).dedupeHash)),
  );
  let reads = 0;
  return {
    reads: () => reads,
    readStream: async (streamId: string) => {
      reads += 1;
      return streams.has(streamId) ? [{} as never] : [];
    },
  };
}

describe('DD-4 the latest generation of an identity', () => {
  it('DD-4 property: found exactly, in O(log n) existence reads', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 5000 }), async (latest) => {
        const store = storeWith(latest);
        expect(await latestGeneration(store, observed)).toBe(latest);
        expect(store.reads()).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(latest + 2)) + 2);
      }),
      { numRuns: 200 },
    );
  });

  it('DD-4 the common case (never reused) costs one read', async () => {
    const store = storeWith(0);
    expect(await latestGeneration(store, observed)).toBe(0);
    expect(store.reads()).toBe(1);
  });
});
