import { materialize, type MaterializeSchedule } from './materialization.js';
import { materialized, minutely, range, scheduleTrigger, t } from './materialization.fixtures.js';
import { isRoutine, MAX_ROUTINE_INSTANTS, routineLimitFor } from './routine.js';
import { evolveSchedule, initialScheduleState, type ScheduleEvent } from './schedule-events.js';

const tick = (now: string, trigger = scheduleTrigger()): MaterializeSchedule => ({
  type: 'MaterializeSchedule',
  trigger,
  now,
  tzdataVersion: '2025b',
});
const stateOf = (events: ScheduleEvent[]) => events.reduce(evolveSchedule, initialScheduleState);
const context = { tzdataVersion: '2025b', routineInstants: 0 };

describe('SC-3 routine decisions (recorded by their Occurrences alone)', () => {
  const after01 = stateOf([materialized({ boundary: t('00:01'), nextDueAt: t('00:02') }, [t('00:01')])]);

  it('an on-time fire that changes nothing else is routine', () => {
    expect(isRoutine(after01, materialize(tick(t('00:02')), after01), context)).toBe(true);
  });

  it('a first activation, a re-activation, a missed instant, a held change or new tz data is recorded', () => {
    expect(isRoutine(initialScheduleState, materialize(tick(t('00:01')), initialScheduleState), context)).toBe(false);
    expect(
      isRoutine(
        after01,
        materialize(tick(t('00:02'), scheduleTrigger({ activation: 4, activatedAt: t('00:01', '30.000') })), after01),
        context,
      ),
    ).toBe(false);
    expect(isRoutine(after01, materialize(tick(t('00:04', '30.000')), after01), context)).toBe(false);
    expect(isRoutine(after01, materialize(tick(t('00:02')), after01), { ...context, tzdataVersion: '2024a' })).toBe(
      false,
    );
    const holding = scheduleTrigger({ schedule: minutely({ policy: 'catch_up', bound: 1 }) });
    expect(isRoutine(after01, materialize(tick(t('00:05', '30.000'), holding), after01), context)).toBe(false);
    const held = stateOf([
      materialized({ boundary: t('00:01'), held: [range(t('00:00'), t('00:00'), 1)] }, [t('00:01')]),
    ]);
    expect(isRoutine(held, materialize(tick(t('00:02')), held), context)).toBe(true);
  });

  it(`every ${MAX_ROUTINE_INSTANTS}th routine instant is recorded, bounding how far a reader follows Occurrences`, () => {
    expect(
      isRoutine(after01, materialize(tick(t('00:02')), after01), {
        ...context,
        routineInstants: MAX_ROUTINE_INSTANTS - 1,
      }),
    ).toBe(true);
    expect(
      isRoutine(after01, materialize(tick(t('00:02')), after01), { ...context, routineInstants: MAX_ROUTINE_INSTANTS }),
    ).toBe(false);
  });

  it('spreads the periodic record of lockstep Triggers over different minutes', () => {
    const limits = Array.from({ length: 1000 }, (_, i) => routineLimitFor(`t-${i}`));
    expect(Math.min(...limits)).toBe(MAX_ROUTINE_INSTANTS / 2);
    expect(Math.max(...limits)).toBe(MAX_ROUTINE_INSTANTS);
    expect(new Set(limits).size).toBeGreaterThan(25);
  });

  it('nothing fired is not a decision at all', () => {
    expect(materialize(tick(t('00:01', '30.000')), after01)).toEqual([]);
  });
});
