import { deciderSpec } from '../shared/given-when-then.js';
import { validateSourceDefinition, type SourceDefinition } from './source-definition.js';
import {
  MAX_ACTIVE_KEYS,
  sourceDecider,
  type AddSourceKey,
  type RetireSourceKey,
  type ReviseSource,
  type SourceKeyAdded,
  type SourceKeyRetired,
  type SourceRevised,
} from './source.js';

const spec = deciderSpec(sourceDecider);
const AT = '2026-03-01T10:00:00.000Z';
const LATER = '2026-03-02T10:00:00.000Z';

const normalized = (raw: Record<string, unknown>): SourceDefinition => {
  const result = validateSourceDefinition(raw);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value;
};
const signed = { scheme: 'standard-webhooks' };
const revise = (over: Partial<ReviseSource> = {}): ReviseSource => ({
  type: 'ReviseSource',
  tenant: 'acme',
  sourceId: 'gh',
  definition: signed,
  reason: 'onboard',
  actor: 'ops',
  at: AT,
  ...over,
});
const addKey = (keyId: string, over: Partial<AddSourceKey> = {}): AddSourceKey => ({
  type: 'AddSourceKey',
  tenant: 'acme',
  sourceId: 'gh',
  keyId,
  actor: 'ops',
  at: AT,
  ...over,
});
const retire = (keyId: string): RetireSourceKey => ({
  type: 'RetireSourceKey',
  tenant: 'acme',
  sourceId: 'gh',
  keyId,
  actor: 'ops',
  at: LATER,
});

const revised = (revision: number, raw: Record<string, unknown> = signed, reason = 'onboard'): SourceRevised => ({
  type: 'SourceRevised',
  data: { tenant: 'acme', sourceId: 'gh', revision, definition: normalized(raw), reason, actor: 'ops', at: AT },
});
const keyAdded = (keyId: string, generation: number): SourceKeyAdded => ({
  type: 'SourceKeyAdded',
  data: { tenant: 'acme', sourceId: 'gh', keyId, generation, at: AT, actor: 'ops' },
});
const keyRetired = (keyId: string, generation: number): SourceKeyRetired => ({
  type: 'SourceKeyRetired',
  data: { tenant: 'acme', sourceId: 'gh', keyId, generation, at: LATER, actor: 'ops' },
});

describe('Source', () => {
  describe('revisions (PUT /v1/sources)', () => {
    it('creates revision 1 with defaults written out', () =>
      spec
        .given()
        .when(revise({ expectedRevision: 0 }))
        .then([revised(1)]));
    it('revises to n + 1 and keeps the keys', () => {
      const state = spec
        .given([revised(1), keyAdded('k1', 1)])
        .when(revise({ definition: { ...signed, toleranceSeconds: 60 }, expectedRevision: 1 }))
        .thenState();
      expect(state).toMatchObject({
        status: 'defined',
        revision: 2,
        definition: { toleranceSeconds: 60 },
        keys: [{ keyId: 'k1', generation: 1, retired: false }],
      });
    });
    it('returns [] for an unchanged definition, even when its defaults were spelled out', () =>
      spec
        .given([revised(1)])
        .when(revise({ definition: { ...signed, toleranceSeconds: 300, format: 'json' } }))
        .then([]));
    it('rejects invalid content with pointers', () =>
      spec
        .given()
        .when(revise({ definition: { scheme: 'standard-webhooks', maxBodyBytes: 0 } }))
        .thenRejects('invalid_definition', {
          errors: [{ pointer: '/maxBodyBytes', message: 'maxBodyBytes must be an integer from 1 to 1048576' }],
        }));
  });

  describe('expectedRevision, as for Missions and Triggers', () => {
    it('0 on an existing source conflicts with the current revision', () =>
      spec
        .given([revised(1)])
        .when(revise({ expectedRevision: 0 }))
        .thenRejects('revision_conflict', { currentRevision: 1 }));
    it('n on a missing source conflicts with currentRevision 0', () =>
      spec
        .given()
        .when(revise({ expectedRevision: 2 }))
        .thenRejects('revision_conflict', { currentRevision: 0 }));
    it('a stale n conflicts', () =>
      spec
        .given([revised(1), revised(2, { ...signed, toleranceSeconds: 10 })])
        .when(revise({ expectedRevision: 1, definition: { ...signed, toleranceSeconds: 20 } }))
        .thenRejects('revision_conflict', { currentRevision: 2 }));
    it('omitted is unconditional', () =>
      spec
        .given([revised(1)])
        .when(revise({ definition: { ...signed, toleranceSeconds: 10 } }))
        .then([revised(2, { ...signed, toleranceSeconds: 10 })]));
  });

  describe('the scheme is fixed at creation (keys are scheme-specific)', () => {
    it('refuses another scheme with a /scheme pointer', () =>
      spec
        .given([revised(1)])
        .when(revise({ definition: { scheme: 'github-hmac-sha256' } }))
        .thenRejects('invalid_definition', {
          errors: [
            { pointer: '/scheme', message: 'scheme cannot change (it is "standard-webhooks"); create a new source' },
          ],
        }));
  });

  describe('WH-3 key generations', () => {
    it('adds generation 1 to a new source, never with a secret in the event', () =>
      spec
        .given([revised(1)])
        .when(addKey('k1'))
        .then([keyAdded('k1', 1)]));
    it('numbers generations max + 1, counting retired keys', () =>
      spec
        .given([revised(1), keyAdded('k1', 1), keyAdded('k2', 2), keyRetired('k2', 2)])
        .when(addKey('k3'))
        .then([keyAdded('k3', 3)]));
    it('refuses a key id already used, also a retired one', () => {
      spec
        .given([revised(1), keyAdded('k1', 1)])
        .when(addKey('k1'))
        .thenRejects('key_exists');
      spec
        .given([revised(1), keyAdded('k1', 1), keyRetired('k1', 1)])
        .when(addKey('k1'))
        .thenRejects('key_exists');
    });
    it('WH-5 an unsigned source takes no keys', () =>
      spec
        .given([revised(1, { scheme: 'unsigned' })])
        .when(addKey('k1'))
        .thenRejects('scheme_has_no_keys'));
    it('a missing source is not_found', () => spec.given().when(addKey('k1')).thenRejects('not_found'));
    it(`bounds the overlap at ${MAX_ACTIVE_KEYS} active keys`, () => {
      const full = [revised(1), ...Array.from({ length: MAX_ACTIVE_KEYS }, (_, i) => keyAdded(`k${i + 1}`, i + 1))];
      spec.given(full).when(addKey('extra')).thenRejects('key_limit_reached');
      spec
        .given([...full, keyRetired('k1', 1)])
        .when(addKey('extra'))
        .then([keyAdded('extra', MAX_ACTIVE_KEYS + 1)]);
    });
  });

  describe('WH-3 retiring a key stops it at once', () => {
    it('retires the named generation', () => {
      spec
        .given([revised(1), keyAdded('k1', 1), keyAdded('k2', 2)])
        .when(retire('k1'))
        .then([keyRetired('k1', 1)]);
      const state = spec
        .given([revised(1), keyAdded('k1', 1), keyAdded('k2', 2)])
        .when(retire('k1'))
        .thenState();
      expect(state.status === 'defined' && state.keys).toEqual([
        { keyId: 'k1', generation: 1, retired: true, addedAt: AT, retiredAt: LATER },
        { keyId: 'k2', generation: 2, retired: false, addedAt: AT, retiredAt: null },
      ]);
    });
    it('retiring a retired key changes nothing', () =>
      spec
        .given([revised(1), keyAdded('k1', 1), keyRetired('k1', 1)])
        .when(retire('k1'))
        .then([]));
    it('an unknown key is not_found', () =>
      spec
        .given([revised(1), keyAdded('k1', 1)])
        .when(retire('k9'))
        .thenRejects('not_found'));
    it('a missing source is not_found', () => spec.given().when(retire('k1')).thenRejects('not_found'));
  });
});
