import { deciderSpec } from '../shared/given-when-then.js';
import { isRejection } from '../shared/result.js';
import { missionDecider, type MissionRevised, type ReviseMission } from './mission.js';
import type { MissionGrants } from './mission-grants.js';

const spec = deciderSpec(missionDecider);
const AT = '2026-03-01T10:00:00.000Z';
const grants: MissionGrants = {
  maxExecutionsPerHour: 60,
  maxConcurrent: 2,
  resourceScopes: ['repo:acme/*'],
  classification: 'internal',
  acceptLowerTrust: false,
  maxCausalDepth: 4,
};

/** `state` and `grants` override the definition's members; `definition` adds (or replaces) any other. */
type ReviseOverrides = Partial<Omit<ReviseMission, 'definition'>> & {
  state?: unknown;
  grants?: unknown;
  definition?: Record<string, unknown>;
};

const revise = (over: ReviseOverrides = {}): ReviseMission => {
  const { state, grants: granted, definition, ...command } = over;
  return {
    type: 'ReviseMission',
    tenant: 'acme',
    missionId: 'm-1',
    reason: 'onboarding',
    actor: 'svc-missions',
    at: AT,
    ...command,
    definition: {
      state: 'state' in over ? state : 'active',
      grants: 'grants' in over ? granted : grants,
      ...definition,
    },
  };
};

const revised = (revision: number, over: Partial<MissionRevised['data']> = {}): MissionRevised => ({
  type: 'MissionRevised',
  data: {
    tenant: 'acme',
    missionId: 'm-1',
    revision,
    state: 'active',
    grants,
    reason: 'onboarding',
    actor: 'svc-missions',
    at: AT,
    ...over,
  },
});

describe('Mission', () => {
  describe('when it does not exist yet', () => {
    it('creates revision 1 with the whole state and grants', () =>
      spec
        .given([])
        .when(revise({ expectedRevision: 0 }))
        .then([revised(1)]));
    it('fills acceptLowerTrust with the safe false when it is left out', () => {
      const { acceptLowerTrust: _, ...withoutTrust } = grants;
      spec
        .given([])
        .when(revise({ grants: withoutTrust }))
        .then([revised(1)]);
    });
  });

  describe('TR-3 optimistic concurrency (expectedRevision)', () => {
    it('rejects a create over an existing Mission with the current revision', () =>
      spec
        .given([revised(1)])
        .when(revise({ expectedRevision: 0 }))
        .thenRejects('revision_conflict', { currentRevision: 1 }));
    it('rejects a stale writer with the current revision', () =>
      spec
        .given([revised(1), revised(2)])
        .when(revise({ expectedRevision: 1, state: 'paused' }))
        .thenRejects('revision_conflict', { currentRevision: 2 }));
    it('rejects an expected revision on a Mission that does not exist with currentRevision 0', () =>
      spec
        .given([])
        .when(revise({ expectedRevision: 3 }))
        .thenRejects('revision_conflict', { currentRevision: 0 }));
    it('accepts the matching revision and an omitted one', () => {
      spec
        .given([revised(1)])
        .when(revise({ expectedRevision: 1, state: 'paused' }))
        .then([revised(2, { state: 'paused' })]);
      spec
        .given([revised(1)])
        .when(revise({ state: 'paused' }))
        .then([revised(2, { state: 'paused' })]);
    });
  });

  describe('an unchanged revision', () => {
    it('changes nothing: same state and grants return [] (re-applying a file is idempotent)', () =>
      spec
        .given([revised(1)])
        .when(revise({ reason: 'apply again', grants: { ...grants, resourceScopes: ['repo:acme/*'] } }))
        .then([]));
    it('still conflicts when the writer is stale', () =>
      spec
        .given([revised(1), revised(2)])
        .when(revise({ expectedRevision: 1 }))
        .thenRejects('revision_conflict'));
  });

  describe('cancelled and revoked are terminal', () => {
    for (const terminal of ['cancelled', 'revoked'] as const) {
      it(`rejects reactivating a ${terminal} Mission with mission_terminal`, () =>
        spec
          .given([revised(1), revised(2, { state: terminal })])
          .when(revise({ state: 'active' }))
          .thenRejects('mission_terminal', { currentRevision: 2 }));
      it(`rejects new grants for a ${terminal} Mission, even with a matching revision`, () =>
        spec
          .given([revised(1, { state: terminal })])
          .when(revise({ state: terminal, expectedRevision: 1, grants: { ...grants, maxConcurrent: 9 } }))
          .then('mission_terminal'));
    }
    it('lets a paused Mission resume', () =>
      spec
        .given([revised(1, { state: 'paused' })])
        .when(revise({ state: 'active' }))
        .then([revised(2)]));
    it('answers [] to the same terminal definition re-applied', () =>
      spec
        .given([revised(1, { state: 'cancelled' })])
        .when(revise({ state: 'cancelled' }))
        .then([]));
  });

  describe('invalid definitions (422 invalid_definition)', () => {
    const errorsFor = (command: ReviseMission) => {
      const result = spec.given([]).when(command).result();
      return isRejection(result) && result.code === 'invalid_definition'
        ? result.errors?.map((e) => e.pointer)
        : result;
    };
    it('points at each faulty grant', () => {
      expect(
        errorsFor(
          revise({
            grants: {
              maxExecutionsPerHour: -1,
              maxConcurrent: 1.5,
              resourceScopes: ['', 'repo:*/x'],
              classification: 'secret',
              acceptLowerTrust: 'yes',
              maxCausalDepth: 65,
            },
          }),
        ),
      ).toEqual([
        '/grants/maxExecutionsPerHour',
        '/grants/maxConcurrent',
        '/grants/resourceScopes/0',
        '/grants/resourceScopes/1',
        '/grants/classification',
        '/grants/acceptLowerTrust',
        '/grants/maxCausalDepth',
      ]);
    });
    it('rejects an unknown state, missing grants and unknown members', () => {
      expect(errorsFor(revise({ state: 'sleeping' }))).toEqual(['/state']);
      expect(errorsFor(revise({ grants: undefined }))).toEqual(['/grants']);
      expect(errorsFor(revise({ grants: { ...grants, maxConcurent: 1 } }))).toEqual(['/grants/maxConcurent']);
      const { maxCausalDepth: _, ...withoutDepth } = grants;
      expect(errorsFor(revise({ grants: withoutDepth }))).toEqual(['/grants/maxCausalDepth']);
    });
    it('rejects a missing state, and unknown members at the top level as in grants (Object.prototype names too)', () => {
      expect(errorsFor(revise({ state: undefined }))).toEqual(['/state']);
      expect(errorsFor(revise({ definition: { foo: 1 } }))).toEqual(['/foo']);
      for (const name of ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
        expect(errorsFor(revise({ definition: { [name]: 1 } }))).toEqual([`/${name}`]);
        expect(errorsFor(revise({ grants: { ...grants, [name]: 1 } }))).toEqual([`/grants/${name}`]);
      }
      // The envelope members a definitions file or a PUT body carries are not definition content, nor unknown.
      const tolerated = spec
        .given([])
        .when(revise({ definition: { missionId: 'm-1', expectedRevision: 0, reason: 'r' } }))
        .result();
      expect(isRejection(tolerated)).toBe(false);
    });
  });

  describe('evolve', () => {
    it('keeps the latest revision, state, grants and time', () => {
      const state = spec
        .given([revised(1)])
        .when(revise({ state: 'paused', at: '2026-03-02T00:00:00.000Z' }))
        .thenState();
      expect(state).toEqual({
        status: 'defined',
        tenant: 'acme',
        missionId: 'm-1',
        revision: 2,
        state: 'paused',
        grants,
        updatedAt: '2026-03-02T00:00:00.000Z',
      });
    });
  });
});
