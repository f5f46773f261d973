import { IllegalStateError } from '../shared/errors.js';
import { mission, trigger } from '../occurrence/occurrence.fixtures.js';
import { authorityStanding, type Binding } from './standing.js';

/** Work admitted under revision 2 of t-1 for m-1 (the fixtures' current revision). */
const bound: Binding = { tenant: 'acme', triggerId: 't-1', triggerRevision: 2, missionId: 'm-1' };
const reasonOf = (...args: Parameters<typeof authorityStanding>) => {
  const standing = authorityStanding(...args);
  return standing.stands ? 'stands' : standing.reason;
};

describe('AD-2 EX-4 authority standing: the bound Trigger and Mission as they are now', () => {
  it('stands with the current Trigger and Mission when nothing changed', () =>
    expect(authorityStanding(bound, trigger(), mission())).toEqual({
      stands: true,
      trigger: trigger(),
      mission: mission(),
    }));

  it.each([
    ['a deleted Trigger', trigger({ deleted: true }), 'trigger_deleted'],
    ['a disabled Trigger', trigger({ enabled: false }), 'trigger_disabled'],
    ['a newer revision', trigger({ revision: 3 }), 'revision_superseded'],
    [
      'a newer revision bound to another Mission, even accepting older ones',
      trigger({ revision: 3 }, { acceptOlderRevisions: true, missionId: 'm-2' }),
      'revision_superseded',
    ],
    ['a newer revision that accepts older ones', trigger({ revision: 3 }, { acceptOlderRevisions: true }), 'stands'],
    [
      'a Trigger deleted and created again under its id, accepting older revisions (a life the work never had)',
      trigger({ revision: 4, createdRevision: 4 }, { acceptOlderRevisions: true }),
      'trigger_deleted',
    ],
    [
      'the current life begun at the bound revision, accepting older ones',
      trigger({ revision: 3, createdRevision: 2 }, { acceptOlderRevisions: true }),
      'stands',
    ],
  ] as const)('%s → %s', (_, current, reason) => expect(reasonOf(bound, current, mission())).toBe(reason));

  it.each([
    ['paused', 'mission_paused'],
    ['cancelled', 'mission_cancelled'],
    ['revoked', 'mission_revoked'],
  ] as const)('a %s Mission → %s, with its state as evidence', (state, reason) =>
    expect(authorityStanding(bound, trigger(), mission(state))).toEqual({
      stands: false,
      reason,
      evidence: { missionId: 'm-1', missionState: state, missionRevision: 3 },
    }),
  );

  it('an absent Trigger is deleted and an absent Mission grants nothing; the Trigger is asked first', () => {
    expect(reasonOf(bound, { status: 'absent' }, mission())).toBe('trigger_deleted');
    expect(reasonOf(bound, trigger(), { status: 'absent' })).toBe('mission_revoked');
    expect(reasonOf(bound, trigger({ enabled: false }), mission('cancelled'))).toBe('trigger_disabled');
  });

  it("refuses facts about another tenant's Trigger or Mission (a handler bug)", () => {
    expect(() => authorityStanding({ ...bound, tenant: 'other' }, trigger(), mission())).toThrow(IllegalStateError);
    expect(() => authorityStanding({ ...bound, missionId: 'm-9' }, trigger(), mission())).toThrow(IllegalStateError);
  });
});
