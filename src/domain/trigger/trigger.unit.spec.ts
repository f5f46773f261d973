import { IllegalStateError } from '../shared/errors.js';
import { isRejection } from '../shared/result.js';
import { type TriggerDefinition } from './trigger-definition.js';
import { triggerDecider } from './trigger.js';
import { spec, grants, mission, body, revise, toggle, remove, stored, revised, deleted } from './trigger.fixtures.js';

describe('Trigger', () => {
  describe('TR-1 revisions hold the whole definition', () => {
    it('creates revision 1 with defaults filled and constraints inherited from the Mission', () =>
      spec
        .given()
        .when(revise({ expectedRevision: 0 }))
        .then([revised(1)]));
    it('records explicit constraints as given and inherits the rest', () => {
      const raw = body({ constraints: { maxConcurrent: 1, resourceScopes: ['repo:acme/api'] } });
      spec
        .given()
        .when(revise({ definition: raw }))
        .then([revised(1, stored(raw))]);
    });
    it('pins the tz data of a schedule revision', () => {
      const raw = {
        missionId: 'm-1',
        type: 'schedule',
        schedule: { engine: 'interval@1', expression: 'PT1H', timezone: 'UTC', start: '2026-01-01T00:00:00Z' },
      };
      spec
        .given()
        .when(revise({ definition: raw }))
        .then([revised(1, stored(raw), 1, { pins: { tzdataVersion: '2025b' } })]);
    });
    it('returns [] for an unchanged definition (re-applying a file appends nothing)', () =>
      spec
        .given([revised(1)])
        .when(revise())
        .then([]));
    it('EX-4 makes a changed delivery block a new revision holding the whole policy', () => {
      const raw = body({ delivery: { maxRuntimeSeconds: 30 } });
      const state = spec
        .given([revised(1)])
        .when(revise({ definition: raw }))
        .thenState();
      expect(state.status === 'defined' && state.definition.delivery).toEqual({
        maxAttempts: 5,
        backoff: { initialSeconds: 1, multiplier: 2, maxSeconds: 300 },
        claimWithinSeconds: 60,
        maxRuntimeSeconds: 30,
        budgetUnits: null,
      });
    });
    describe('given a revision recorded before the delivery block existed', () => {
      const { delivery: _, ...withoutDelivery } = stored();
      const legacy = revised(1, withoutDelivery as TriggerDefinition);
      it('then its state holds the default policy, as if written out (TR-1)', () => {
        const state = [legacy].reduce(triggerDecider.evolve, triggerDecider.initialState);
        expect(state.status === 'defined' && state.definition.delivery).toEqual(stored().delivery);
      });
      it('when the same file is applied again, then nothing is appended (TR-5: no new revision)', () =>
        spec.given([legacy]).when(revise()).then([]));
    });
    it('TR-4 makes a new Mission binding a new revision', () => {
      const other = mission({ missionId: 'm-2' });
      spec
        .given([revised(1)])
        .when(revise({ definition: body({ missionId: 'm-2' }), mission: other }))
        .then([revised(2, stored(body({ missionId: 'm-2' })))]);
    });
    it('rejects invalid content with pointers', () =>
      spec
        .given()
        .when(revise({ definition: body({ type: 'schedule', source: undefined }) }))
        .thenRejects('invalid_definition', { errors: [{ pointer: '/schedule', message: 'schedule is required' }] }));
  });

  describe('TR-3 optimistic concurrency', () => {
    it('rejects a create over an existing Trigger with the current revision', () =>
      spec
        .given([revised(1)])
        .when(revise({ expectedRevision: 0, definition: body({ enabled: false }) }))
        .thenRejects('revision_conflict', { currentRevision: 1 }));
    it('rejects a stale writer with the current revision', () =>
      spec
        .given([revised(1), revised(2, stored(body({ overlap: 'skip' })))])
        .when(revise({ expectedRevision: 1 }))
        .thenRejects('revision_conflict', { currentRevision: 2 }));
    it('accepts the matching revision', () =>
      spec
        .given([revised(1)])
        .when(revise({ expectedRevision: 1, definition: body({ overlap: 'skip' }) }))
        .then([revised(2, stored(body({ overlap: 'skip' })))]));
  });

  describe('the bound Mission', () => {
    it('must exist', () =>
      spec
        .given()
        .when(revise({ mission: { status: 'absent' } }))
        .thenRejects('mission_not_found', {
          errors: [{ pointer: '/missionId', message: 'mission "m-1" does not exist' }],
        }));
    it('must not be terminal', () => {
      spec
        .given()
        .when(revise({ mission: mission({ state: 'cancelled' }) }))
        .then('mission_terminal');
      spec
        .given()
        .when(revise({ mission: mission({ state: 'revoked' }) }))
        .then('mission_terminal');
    });
    it('may be paused (admission blocks later)', () =>
      spec
        .given()
        .when(revise({ mission: mission({ state: 'paused' }) }))
        .then([revised(1)]));
    it('must be the Mission the definition names (a handler bug otherwise)', () =>
      spec
        .given()
        .when(revise({ mission: mission({ missionId: 'm-9' }) }))
        .thenThrows(IllegalStateError));
  });

  describe('TR-2 authority widening', () => {
    const widening = (constraints: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
      const result = spec
        .given()
        .when(revise({ definition: body({ constraints, ...extra }) }))
        .result();
      return isRejection(result) && result.code === 'authority_widening'
        ? result.errors?.map((e) => e.pointer)
        : result;
    };
    it.each([
      ['maxExecutionsPerHour', { maxExecutionsPerHour: 61 }],
      ['maxConcurrent', { maxConcurrent: 3 }],
      ['classification', { classification: 'confidential' }],
      ['acceptLowerTrust', { acceptLowerTrust: true }],
    ])('rejects %s above the grant', (field, constraints) =>
      expect(widening(constraints)).toEqual([`/constraints/${field}`]),
    );
    it('names each resource scope outside the grants, including a wider glob', () =>
      expect(widening({ resourceScopes: ['repo:acme/api', 'repo:evil/x', 'repo:*'] })).toEqual([
        '/constraints/resourceScopes/1',
        '/constraints/resourceScopes/2',
      ]));
    it('rejects a causal depth envelope above the Mission (CA-3)', () =>
      expect(widening({}, { causality: { maxDepth: 5 } })).toEqual(['/causality/maxDepth']));
    it('names every widened field at once', () =>
      expect(widening({ maxConcurrent: 9, classification: 'restricted' })).toEqual([
        '/constraints/maxConcurrent',
        '/constraints/classification',
      ]));
    it('accepts constraints equal to or narrower than the grants', () => {
      const { maxCausalDepth: _, ...equal } = grants;
      const raw = body({
        constraints: { ...equal, maxConcurrent: 1, resourceScopes: ['repo:acme/api', 'repo:acme/*'] },
        causality: { maxDepth: 4 },
      });
      spec
        .given()
        .when(revise({ definition: raw }))
        .then([revised(1, stored(raw))]);
    });
  });

  describe('TR-5 dedupe epoch', () => {
    it('starts at 1 and is retained by default', () =>
      spec
        .given([revised(1)])
        .when(revise({ definition: body({ overlap: 'skip' }) }))
        .then([revised(2, stored(body({ overlap: 'skip' })), 1)]));
    it('increments on a revision declaring reset', () => {
      const raw = body({ dedupe: { onRevision: 'reset' } });
      spec
        .given([revised(1)])
        .when(revise({ definition: raw }))
        .then([revised(2, stored(raw), 2)]);
    });
    it('is not reset again when the same reset definition is re-applied', () => {
      const raw = body({ dedupe: { onRevision: 'reset' } });
      spec
        .given([revised(1), revised(2, stored(raw), 2)])
        .when(revise({ definition: raw }))
        .then([]);
    });
  });

  describe('enable and disable are revisions', () => {
    it('disables with the same definition except enabled', () =>
      spec
        .given([revised(1)])
        .when(toggle(false))
        .then([revised(2, { ...stored(), enabled: false }, 1, { reason: 'ops' })]));
    it('returns [] when already in that state', () =>
      spec
        .given([revised(1)])
        .when(toggle(true))
        .then([]));
    it('keeps the dedupe epoch and pins even under onRevision reset', () => {
      const raw = {
        missionId: 'm-1',
        type: 'schedule',
        schedule: { engine: 'cron@1', expression: '* * * * *', timezone: 'UTC' },
        dedupe: { onRevision: 'reset' },
      };
      const pins = { tzdataVersion: '2024a' };
      spec
        .given([revised(3, stored(raw), 2, { pins })])
        .when(toggle(false))
        .then([revised(4, { ...stored(raw), enabled: false }, 2, { pins, reason: 'ops' })]);
    });
    it('refuses to enable under a terminal Mission, but always allows disabling', () => {
      const off = revised(2, { ...stored(), enabled: false });
      spec
        .given([revised(1), off])
        .when(toggle(true, { mission: mission({ state: 'revoked' }) }))
        .then('mission_terminal');
      spec
        .given([revised(1)])
        .when(toggle(false, { mission: mission({ state: 'revoked' }) }))
        .then([revised(2, { ...stored(), enabled: false }, 1, { reason: 'ops' })]);
    });
    it('refuses an unknown or deleted Trigger', () => {
      spec.given().when(toggle(false)).then('trigger_not_found');
      spec
        .given([revised(1), deleted(2)])
        .when(toggle(false))
        .thenRejects('trigger_deleted', { currentRevision: 2 });
    });
    it('honours expectedRevision', () =>
      spec
        .given([revised(1), revised(2)])
        .when(toggle(false, { expectedRevision: 1 }))
        .thenRejects('revision_conflict', { currentRevision: 2 }));
  });

  describe('delete', () => {
    it('is a revision; deleting again returns []', () => {
      spec
        .given([revised(1)])
        .when(remove())
        .then([deleted(2)]);
      spec
        .given([revised(1), deleted(2)])
        .when(remove())
        .then([]);
    });
    it('refuses an unknown Trigger and a stale writer', () => {
      spec.given().when(remove()).then('trigger_not_found');
      spec
        .given([revised(1), revised(2)])
        .when(remove({ expectedRevision: 1 }))
        .thenRejects('revision_conflict', { currentRevision: 2 });
    });
    it('allows re-creation, continuing revisions, in a new dedupe epoch (api.md: DELETE, then PUT at 0)', () =>
      spec
        .given([revised(1), deleted(2)])
        .when(revise({ expectedRevision: 0 }))
        .then([revised(3, stored(), 2)]));
    it('a re-created Trigger is a new life: createdRevision is the revision that created it again', () => {
      const life = (events: Array<ReturnType<typeof revised> | ReturnType<typeof deleted>>) => {
        const state = events.reduce(triggerDecider.evolve, triggerDecider.initialState);
        return state.status === 'defined' ? state.createdRevision : null;
      };
      expect(life([revised(1)])).toBe(1);
      expect(life([revised(1), revised(2)])).toBe(1);
      // the deleted life keeps its own (the operator views read its history)
      expect(life([revised(1), revised(2), deleted(3)])).toBe(1);
      expect(life([revised(1), deleted(2), revised(3, stored(), 2)])).toBe(3);
      expect(life([revised(1), deleted(2), revised(3, stored(), 2), revised(4, stored(), 2)])).toBe(3);
    });
    it('folds into a deleted state', () => {
      expect(
        spec
          .given([revised(1)])
          .when(remove())
          .thenState(),
      ).toMatchObject({ status: 'defined', revision: 2, deleted: true });
    });
  });
});
