import { definition } from '../occurrence/occurrence.fixtures.js';
import { deciderSpec } from '../shared/given-when-then.js';
import { isRejection } from '../shared/result.js';
import type { TriggerDefinition } from '../trigger/trigger-definition.js';
import { revised, schedule } from './trigger-revisions.fixtures.js';
import type { TriggerEvent } from '../trigger/trigger.js';
import { type EndedActivation, endedActivations, needsEndedActivations } from './ended-activations.js';
import { type MaterializeSchedule, scheduleDecider, type ScheduleTrigger } from './materialization.js';
import { materialized, minutely, range, scheduleTrigger, t } from './materialization.fixtures.js';
import type { ScheduleMaterialized, ScheduleState } from './schedule-events.js';

const everyTwo = minutely({}, { expression: '*/2 * * * *' });

const spec = deciderSpec(scheduleDecider);
const tick = (now: string, trigger: ScheduleTrigger): MaterializeSchedule => ({
  type: 'MaterializeSchedule',
  trigger,
  now,
  tzdataVersion: '2025b',
});

function decided(events: Parameters<typeof spec.given>[0], command: MaterializeSchedule) {
  const result = spec.given(events).when(command).result();
  if (isRejection(result)) throw new Error(`rejected: ${result.code}`);
  const closing = result[result.length - 1] as ScheduleMaterialized;
  const skipped = result.flatMap((e) => (e.type === 'MissedOccurrencesSkipped' ? [e.data] : []));
  return { events: result, skipped, closing: closing.data };
}

describe('SC-5 activations ended while no scheduler ran', () => {
  describe('which activations a Trigger history ends', () => {
    it('a schedule change ends the live activation (superseded), a disable (disabled) and a deletion (deleted)', () => {
      const events = [
        revised(1, t('00:00'), schedule()),
        revised(2, t('00:10'), schedule({ schedule: everyTwo })),
        revised(3, t('00:20'), schedule({ schedule: everyTwo, enabled: false })),
        revised(4, t('00:30'), schedule({ schedule: everyTwo })),
        {
          type: 'TriggerDeleted',
          data: { tenant: 'acme', triggerId: 't-1', revision: 5, reason: '', actor: 'a', at: t('00:40') },
        },
      ] satisfies TriggerEvent[];
      expect(endedActivations(events, null, 5).map(({ schedule: _s, ...a }) => a)).toEqual([
        { epoch: 1, activation: 1, activatedAt: t('00:00'), endedAt: t('00:10'), cause: 'superseded' },
        { epoch: 2, activation: 2, activatedAt: t('00:10'), endedAt: t('00:20'), cause: 'disabled' },
        { epoch: 2, activation: 4, activatedAt: t('00:30'), endedAt: t('00:40'), cause: 'deleted' },
      ]);
    });

    it('revisions that leave the schedule alone, and a disabled Trigger revised again, end nothing more', () => {
      const events = [
        revised(1, t('00:00'), schedule()),
        revised(2, t('00:05'), schedule({ overlap: 'skip' })),
        revised(3, t('00:10'), schedule({ enabled: false })),
        revised(4, t('00:15'), schedule({ enabled: false, schedule: everyTwo })),
        revised(5, t('00:20'), definition()),
      ];
      expect(endedActivations(events, null, 5).map((a) => [a.activation, a.endedAt, a.cause])).toEqual([
        [1, t('00:10'), 'disabled'],
      ]);
      // the current activation has not ended: nothing to record for it, also when the read holds a later revision
      expect(endedActivations(events.slice(0, 2), null, 2)).toEqual([]);
      expect(endedActivations(events, null, 2)).toEqual([]);
    });

    it('from a recorded state on: its activation keeps its epoch, a re-enable included', () => {
      const events = [revised(3, t('00:20'), schedule()), revised(4, t('00:25'), schedule({ schedule: everyTwo }))];
      expect(endedActivations(events, { epoch: 1, activation: 3 }, 4)).toMatchObject([
        { epoch: 1, activation: 3, activatedAt: t('00:20'), endedAt: t('00:25'), cause: 'superseded' },
      ]);
      expect(() => endedActivations(events.slice(1), { epoch: 1, activation: 3 }, 4)).toThrow(/activation 3/);
    });

    it('a new activation needs them; an unchanged one, or the first revision with nothing recorded, does not', () => {
      const recorded: ScheduleState = {
        status: 'materialized',
        epoch: 1,
        activation: 1,
        boundary: t('00:01'),
        nextDueAt: null,
        held: [],
        missedRun: null,
        lastFiredAt: null,
      };
      expect(needsEndedActivations({ activation: 1 }, { status: 'absent' })).toBe(false);
      expect(needsEndedActivations({ activation: 2 }, { status: 'absent' })).toBe(true);
      expect(needsEndedActivations({ activation: 1 }, recorded)).toBe(false);
      expect(needsEndedActivations({ activation: 3 }, recorded)).toBe(true);
    });
  });

  describe('the decision', () => {
    const ended = (over: Partial<EndedActivation> = {}): EndedActivation => ({
      epoch: 1,
      activation: 1,
      activatedAt: t('00:00', '30.000'),
      schedule: minutely(),
      endedAt: t('00:10', '30.000'),
      cause: 'superseded',
      ...over,
    });
    const changed = (over: Partial<ScheduleTrigger> = {}) =>
      scheduleTrigger({
        revision: 2,
        epoch: 2,
        activation: 2,
        activatedAt: t('00:10', '30.000'),
        schedule: everyTwo,
        ended: [ended()],
        ...over,
      });

    it('records the old epoch after its recorded boundary up to the revision, then starts the new one at its activation', () => {
      const { skipped, closing } = decided(
        [materialized({ boundary: t('00:01') }, [t('00:01')])],
        tick(t('00:12', '05.000'), changed()),
      );
      expect(skipped).toEqual([
        {
          tenant: 'acme',
          triggerId: 't-1',
          epoch: 1,
          at: t('00:12', '05.000'),
          ...range(t('00:02'), t('00:10'), 9),
          cause: 'superseded',
        },
      ]);
      expect(closing).toMatchObject({ epoch: 2, activation: 2, fired: [t('00:12')], lastFiredAt: t('00:12') });
    });

    it('with nothing recorded, an ended activation counts from its own activation time', () => {
      const { skipped } = decided([], tick(t('00:10', '40.000'), changed()));
      expect(skipped).toMatchObject([{ epoch: 1, ...range(t('00:01'), t('00:10'), 10), cause: 'superseded' }]);
    });

    it('without the ended activations looked up a new activation is not decided', () => {
      expect(() =>
        spec
          .given([materialized({ boundary: t('00:01') })])
          .when(tick(t('00:12'), changed({ ended: null })))
          .result(),
      ).toThrow(/ended/);
    });

    it("the old epoch's held ranges are superseded as before, beside its undecided instants", () => {
      const held = materialized({ boundary: t('00:05'), held: [range(t('00:02'), t('00:03'), 2)] });
      const { skipped, closing } = decided([held], tick(t('00:10', '40.000'), changed()));
      expect(skipped.map((s) => [s.epoch, s.from, s.to, s.count, s.cause])).toEqual([
        [1, t('00:02'), t('00:03'), 2, 'superseded'],
        [1, t('00:06'), t('00:10'), 5, 'superseded'],
      ]);
      expect(closing.held).toEqual([]);
    });

    it('an ended activation of the same epoch (disabled, enabled again) keeps the held ranges', () => {
      const held = materialized({ boundary: t('00:05'), held: [range(t('00:02'), t('00:03'), 2)] });
      const reenabled = scheduleTrigger({
        revision: 3,
        activation: 3,
        activatedAt: t('00:20', '30.000'),
        ended: [ended({ endedAt: t('00:07', '30.000'), cause: 'disabled' })],
      });
      const { skipped, closing } = decided([held], tick(t('00:20', '40.000'), reenabled));
      expect(skipped).toMatchObject([{ epoch: 1, ...range(t('00:06'), t('00:07'), 2), cause: 'disabled' }]);
      expect(closing).toMatchObject({ epoch: 1, activation: 3, held: [range(t('00:02'), t('00:03'), 2)] });
    });

    it('more undecided instants than one scan are recorded over consecutive decisions, never dropped', () => {
      const start = '2026-01-01T00:00:00.000Z';
      const secondly = minutely({}, { engine: 'interval@1', expression: 'PT1S', start });
      const trigger = changed({
        activatedAt: '2026-01-01T03:20:00.000Z',
        ended: [ended({ activatedAt: start, schedule: secondly, endedAt: '2026-01-01T03:20:00.000Z' })],
      });
      const now = '2026-01-01T03:20:10.000Z';
      const first = decided([], tick(now, trigger));
      expect(first.skipped).toMatchObject([{ epoch: 1, from: '2026-01-01T00:00:01.000Z', count: 10_000 }]);
      expect(first.closing).toMatchObject({ epoch: 1, activation: 1, boundary: '2026-01-01T02:46:40.000Z', fired: [] });
      const second = decided(first.events, tick(now, trigger));
      expect(second.skipped).toMatchObject([
        { epoch: 1, from: '2026-01-01T02:46:41.000Z', to: '2026-01-01T03:20:00.000Z', count: 2000 },
      ]);
      expect(second.closing).toMatchObject({ epoch: 2, activation: 2, boundary: '2026-01-01T03:20:00.000Z' });
    });
  });
});
