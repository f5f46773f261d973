import { dedupeIdentityHash, manualIdentity, scheduleIdentity, webhookIdentity } from '../dedupe/dedupe-identity.js';
import { CommandRejected } from '../shared/errors.js';
import { deciderSpec } from '../shared/given-when-then.js';
import { manualInputTooLarge, MAX_MANUAL_INPUT_BYTES } from './manual-input.js';
import {
  deliveredEvidence,
  manualEvidence,
  NO_EVIDENCE,
  observedOccurrence,
  observingTrigger,
} from './observed-occurrence.js';
import { OBSERVED_AT, observe, trigger } from './occurrence.fixtures.js';
import { occurrenceDecider } from './occurrence.js';
import { payloadDigest } from './payload-digest.js';

const spec = deciderSpec(occurrenceDecider);
const t1 = trigger();
const ROOT = { parentId: null, depth: 0, ancestry: [] };
const INTERNAL = { state: 'internal', sourceId: null, keyId: null, keyGeneration: null };

describe('an observed Occurrence, built the same way for every kind (OC-2, OC-3)', () => {
  describe('given a manual fire', () => {
    const identity = manualIdentity('acme', t1, 'idem-1');
    const input = { ticket: 42 };
    const built = observedOccurrence({
      kind: 'manual',
      trigger: observingTrigger(t1),
      dedupeIdentity: identity,
      evidence: manualEvidence(input, ['repo:acme/api']),
      observedAt: OBSERVED_AT,
    });

    it('is named by its identity, bound to the Trigger revision, internal, digesting input and resource refs', () =>
      expect(built).toEqual({
        occurrenceId: dedupeIdentityHash(identity),
        tenant: 'acme',
        triggerId: 't-1',
        triggerRevision: 2,
        missionId: 'm-1',
        kind: 'manual',
        auth: INTERNAL,
        externalId: null,
        dedupeIdentity: identity,
        dedupeHash: dedupeIdentityHash(identity),
        payloadDigest: payloadDigest({ input, resourceRefs: ['repo:acme/api'] }),
        input,
        resourceRefs: ['repo:acme/api'],
        classification: 'internal',
        scheduledAt: null,
        causal: ROOT,
        observedAt: OBSERVED_AT,
      }));

    it('is observed by the Occurrence decider as it stands', () =>
      spec
        .given()
        .when(observe(built))
        .then([{ type: 'OccurrenceObserved', data: built }]));

    it('with other resource refs is another payload (a payload_conflict, OC-4)', () =>
      expect(manualEvidence(input, []).payloadDigest).not.toBe(built.payloadDigest));
  });

  describe('given a webhook delivery', () => {
    const evidence = deliveredEvidence({ action: 'opened' });
    const auth = { state: 'verified' as const, sourceId: 'gh', keyId: 'k1', keyGeneration: 1 };
    const identity = webhookIdentity('acme', t1, 'gh', 'd-1', null);
    const built = observedOccurrence({
      kind: 'webhook',
      trigger: observingTrigger(t1),
      dedupeIdentity: identity,
      evidence,
      observedAt: OBSERVED_AT,
      auth,
      externalId: 'd-1',
    });

    it('carries who authenticated it and the delivery id, and digests the parsed payload alone', () =>
      expect(built).toMatchObject({
        occurrenceId: dedupeIdentityHash(identity),
        kind: 'webhook',
        auth,
        externalId: 'd-1',
        payloadDigest: payloadDigest({ action: 'opened' }),
        input: { action: 'opened' },
        resourceRefs: [],
        scheduledAt: null,
        causal: ROOT,
      }));

    it('is observed by the Occurrence decider as it stands', () =>
      spec
        .given()
        .when(observe(built))
        .then([{ type: 'OccurrenceObserved', data: built }]));

    it('shares its evidence with the other Triggers the delivery reaches, never their arrays', () => {
      const other = observedOccurrence({
        kind: 'webhook',
        trigger: { ...observingTrigger(t1), triggerId: 't-2' },
        dedupeIdentity: { ...identity, triggerId: 't-2' },
        evidence,
        observedAt: OBSERVED_AT,
        auth,
      });
      expect(other.payloadDigest).toBe(built.payloadDigest);
      expect(other.resourceRefs).not.toBe(built.resourceRefs);
    });
  });

  describe('given a schedule instant', () => {
    const binding = { triggerId: 't-1', triggerRevision: 4, missionId: 'm-1', classification: 'internal', epoch: 2 };
    const at = (instant: string) =>
      observedOccurrence({
        kind: 'schedule',
        trigger: binding,
        dedupeIdentity: scheduleIdentity('acme', binding, binding.epoch, instant),
        evidence: NO_EVIDENCE,
        observedAt: OBSERVED_AT,
      });

    it('is scheduled at its canonical UTC instant, whatever RFC 3339 spelling named it (SC-3)', () => {
      expect(at('2026-03-01T11:00:00+01:00').scheduledAt).toBe('2026-03-01T10:00:00.000Z');
      expect(at('2026-03-01T11:00:00+01:00').occurrenceId).toBe(at('2026-03-01T10:00:00Z').occurrenceId);
    });

    it('carries no payload, internal, with the digest of an empty manual fire', () =>
      expect(at('2026-03-01T10:00:00Z')).toMatchObject({
        kind: 'schedule',
        triggerRevision: 4,
        auth: INTERNAL,
        externalId: null,
        input: null,
        resourceRefs: [],
        payloadDigest: payloadDigest({ input: null, resourceRefs: [] }),
        causal: ROOT,
      }));

    it('is observed by the Occurrence decider as it stands', () => {
      const built = at('2026-03-01T10:00:00Z');
      spec
        .given()
        .when(observe(built))
        .then([{ type: 'OccurrenceObserved', data: built }]);
    });
  });
});

describe('OC-5 a manual fire’s input is bounded', () => {
  const sized = (bytes: number) => ({ s: 'x'.repeat(bytes - '{"s":""}'.length) });

  it('up to 64 KiB as canonical JSON is within bounds', () =>
    expect(manualInputTooLarge(sized(MAX_MANUAL_INPUT_BYTES))).toBeNull());
  it('no input at all is within bounds', () => expect(manualInputTooLarge(undefined)).toBeNull());
  it('one byte more is refused as BAD_REQUEST at /input', () => {
    const refusal = manualInputTooLarge(sized(MAX_MANUAL_INPUT_BYTES + 1));
    expect(refusal).toBeInstanceOf(CommandRejected);
    expect(refusal?.rejection).toEqual({
      rejected: true,
      code: 'BAD_REQUEST',
      detail: 'The input is too large.',
      errors: [{ pointer: '/input', message: `input exceeds ${MAX_MANUAL_INPUT_BYTES} bytes` }],
    });
  });
});
