import { dedupeIdentityHash, scheduleIdentity } from '../../domain/dedupe/dedupe-identity.js';
import { payloadDigest } from '../../domain/occurrence/payload-digest.js';
import { occurrenceStream } from '../../domain/shared/ids.js';
import { scheduleOccurrence } from './schedule-appends.js';

const binding = {
  tenant: 'acme',
  triggerId: 'nightly',
  triggerRevision: 3,
  missionId: 'm-1',
  classification: 'internal',
  epoch: 2,
};

describe('a schedule instant observed (SC-3)', () => {
  it('is an internal Occurrence with no payload, named by Trigger, epoch and instant', () => {
    const instant = '2026-12-03T02:00:00.000Z';
    const identity = scheduleIdentity('acme', { triggerId: 'nightly' }, 2, instant);
    const { data } = scheduleOccurrence(binding, instant, '2026-12-03T02:00:00.015Z');
    expect(data).toEqual({
      occurrenceId: dedupeIdentityHash(identity),
      tenant: 'acme',
      triggerId: 'nightly',
      triggerRevision: 3,
      missionId: 'm-1',
      kind: 'schedule',
      auth: { state: 'internal', sourceId: null, keyId: null, keyGeneration: null },
      externalId: null,
      dedupeIdentity: identity,
      dedupeHash: dedupeIdentityHash(identity),
      payloadDigest: payloadDigest({ input: null, resourceRefs: [] }),
      input: null,
      resourceRefs: [],
      classification: 'internal',
      scheduledAt: identity.key,
      causal: { parentId: null, depth: 0, ancestry: [] },
      observedAt: '2026-12-03T02:00:00.015Z',
    });
  });

  it('names the same stream from every scheduler, and a new one for the next epoch', () => {
    const instant = '2026-12-03T02:00:00.000Z';
    const stream = (epoch: number) =>
      occurrenceStream(scheduleOccurrence({ ...binding, epoch }, instant, '2026-12-03T02:00:01.000Z').data.dedupeHash);
    expect(stream(2)).toBe(occurrenceStream(scheduleOccurrence(binding, instant, 'later').data.dedupeHash));
    expect(stream(3)).not.toBe(stream(2));
  });
});
