import { deciderSpec } from '../shared/given-when-then.js';
import { isRejection } from '../shared/result.js';
import { type MaterializeSchedule, scheduleDecider, type ScheduleTrigger } from './materialization.js';
import { materialized, minutely, minutes, range, scheduleTrigger, t } from './materialization.fixtures.js';
import type { ScheduleEvent, ScheduleMaterialized } from './schedule-events.js';

const spec = deciderSpec(scheduleDecider);
const tick = (now: string, trigger: ScheduleTrigger = scheduleTrigger()): MaterializeSchedule => ({
  type: 'MaterializeSchedule',
  trigger,
  now,
  tzdataVersion: '2025b',
});
const base = { tenant: 'acme', triggerId: 't-1', epoch: 1 };

function decided(events: readonly ScheduleEvent[], command: MaterializeSchedule) {
  const result = spec.given(events).when(command).result();
  if (isRejection(result)) throw new Error(`rejected: ${result.code}`);
  const closing = result[result.length - 1] as ScheduleMaterialized | undefined;
  return { events: result, others: result.slice(0, -1), closing: closing?.data };
}

describe('SC-4 SC-5 schedule materialization decider', () => {
  describe('a new activation', () => {
    it('starts at the activation time and fires the first instant once it is due', () => {
      const { others, closing } = decided([], tick(t('00:01')));
      expect(others).toEqual([]);
      expect(closing).toMatchObject({
        fired: [t('00:01')],
        boundary: t('00:01'),
        nextDueAt: t('00:02'),
        epoch: 1,
        activation: 1,
        lastFiredAt: t('00:01'),
      });
    });

    it('does not treat instants before the activation as missed (SC-5: no implicit backfill)', () => {
      const trigger = scheduleTrigger({
        activatedAt: t('00:04', '30.000'),
        schedule: minutely({}, { start: t('00:00') }),
      });
      const { others, closing } = decided([], tick(t('00:05', '10.000'), trigger));
      expect(others).toEqual([]);
      expect(closing?.fired).toEqual([t('00:05')]);
    });

    it('records the activation boundary even when nothing is due yet', () => {
      const { closing } = decided([], tick(t('00:00', '40.000')));
      expect(closing).toMatchObject({ fired: [], boundary: t('00:00', '30.000'), nextDueAt: t('00:01') });
    });
  });

  describe('SC-4 timing', () => {
    const after01 = [materialized({ boundary: t('00:01'), nextDueAt: t('00:02') }, [t('00:01')])];

    it('never fires before the instant', () =>
      spec
        .given(after01)
        .when(tick(t('00:01', '59.999')))
        .then([]));

    it('restart exactly at a fire boundary: the instant already decided is not fired again', () =>
      spec
        .given(after01)
        .when(tick(t('00:01')))
        .then([]));

    it('restart exactly at the next instant fires it, nothing skipped', () => {
      const { others, closing } = decided(after01, tick(t('00:02')));
      expect(others).toEqual([]);
      expect(closing).toMatchObject({ fired: [t('00:02')], boundary: t('00:02') });
    });

    it('an instant exactly graceSeconds late still counts as on time', () => {
      const { others, closing } = decided(after01, tick(t('00:03')));
      expect(others).toEqual([]);
      expect(closing?.fired).toEqual([t('00:02'), t('00:03')]);
    });
  });

  describe('after an outage of 50 missed instants (00:02..00:51, decided at 00:52:30)', () => {
    const given = [materialized({ boundary: t('00:01'), nextDueAt: t('00:02') }, [t('00:01')])];
    const at = t('00:52', '30.000');

    it('skip: records the range and count, fires only the instant within grace', () => {
      const { others, closing } = decided(given, tick(at, scheduleTrigger({ schedule: minutely({ policy: 'skip' }) })));
      expect(others).toEqual([
        {
          type: 'MissedOccurrencesSkipped',
          data: { ...base, at, ...range(t('00:02'), t('00:51'), 50), cause: 'skip' },
        },
      ]);
      expect(closing).toMatchObject({ fired: [t('00:52')], boundary: t('00:52'), nextDueAt: t('00:53'), held: [] });
    });

    it('latest: fires the newest missed instant, records the rest', () => {
      const { others, closing } = decided(
        given,
        tick(at, scheduleTrigger({ schedule: minutely({ policy: 'latest' }) })),
      );
      expect(others).toEqual([
        {
          type: 'MissedOccurrencesSkipped',
          data: { ...base, at, ...range(t('00:02'), t('00:50'), 49), cause: 'latest' },
        },
      ]);
      expect(closing?.fired).toEqual([t('00:51'), t('00:52')]);
    });

    it('catch_up bound 5, hold: fires the 5 oldest in order, holds the other 45, no burst', () => {
      const { others, closing } = decided(
        given,
        tick(at, scheduleTrigger({ schedule: minutely({ policy: 'catch_up', bound: 5, overflow: 'hold' }) })),
      );
      expect(others).toEqual([{ type: 'CatchUpHeld', data: { ...base, at, ...range(t('00:07'), t('00:51'), 45) } }]);
      expect(closing).toMatchObject({
        fired: [...minutes(2, 6), t('00:52')],
        held: [range(t('00:07'), t('00:51'), 45)],
        boundary: t('00:52'),
      });
    });

    it('catch_up bound 5, skip_rest: records the overflow as skipped', () => {
      const { others, closing } = decided(
        given,
        tick(at, scheduleTrigger({ schedule: minutely({ policy: 'catch_up', bound: 5, overflow: 'skip_rest' }) })),
      );
      expect(others).toEqual([
        {
          type: 'MissedOccurrencesSkipped',
          data: { ...base, at, ...range(t('00:07'), t('00:51'), 45), cause: 'overflow' },
        },
      ]);
      expect(closing).toMatchObject({ fired: [...minutes(2, 6), t('00:52')], held: [] });
    });
  });

  describe('held catch-up ranges', () => {
    const catchUp = scheduleTrigger({ schedule: minutely({ policy: 'catch_up', bound: 5, overflow: 'hold' }) });
    const held = [
      materialized(
        { boundary: t('00:52'), nextDueAt: t('00:53'), held: [range(t('00:07'), t('00:51'), 45)] },
        [t('00:52')],
        catchUp,
      ),
    ];
    const operator = { trigger: catchUp, now: t('01:00'), actor: 'ops', reason: 'backfill', tzdataVersion: '2025b' };

    it('do not stop later instants', () => {
      const { others, closing } = decided(held, tick(t('00:53', '10.000'), catchUp));
      expect(others).toEqual([]);
      expect(closing).toMatchObject({ fired: [t('00:53')], held: [range(t('00:07'), t('00:51'), 45)] });
    });

    it('release fires the oldest held instants in order, at most bound of them', () => {
      const result = spec
        .given(held)
        .when({ type: 'ReleaseHeldInstants', ...operator })
        .result() as ScheduleEvent[];
      expect(result[0]).toEqual({
        type: 'CatchUpReleased',
        data: { ...base, at: t('01:00'), ...range(t('00:07'), t('00:11'), 5), actor: 'ops', reason: 'backfill' },
      });
      expect(result[1]!.data).toMatchObject({
        fired: minutes(7, 11),
        held: [range(t('00:12'), t('00:51'), 40)],
        boundary: t('00:52'),
      });
    });

    it('dismiss records every held instant as skipped', () =>
      spec
        .given(held)
        .when({ type: 'DismissHeldInstants', ...operator })
        .then([
          {
            type: 'MissedOccurrencesSkipped',
            data: {
              ...base,
              at: t('01:00'),
              ...range(t('00:07'), t('00:51'), 45),
              cause: 'dismissed',
              actor: 'ops',
              reason: 'backfill',
            },
          },
          materialized(
            { boundary: t('00:52'), nextDueAt: t('00:53'), held: [], at: t('01:00'), lastFiredAt: t('00:52') },
            [],
            catchUp,
          ),
        ]));

    it('release or dismiss with nothing held is refused with nothing_held', () => {
      spec
        .given([])
        .when({ type: 'ReleaseHeldInstants', ...operator })
        .thenRejects('nothing_held');
      spec
        .given([materialized({ boundary: t('00:52') })])
        .when({ type: 'DismissHeldInstants', ...operator })
        .thenRejects('nothing_held');
    });

    it('a schedule change (new epoch) retires the old held ranges as superseded and starts at its activation', () => {
      const changed = scheduleTrigger({
        revision: 3,
        epoch: 3,
        activation: 3,
        activatedAt: t('00:58', '30.000'),
        schedule: minutely({ policy: 'skip' }, { expression: '*/2 * * * *' }),
      });
      const { others, closing } = decided(held, tick(t('01:00', '05.000'), changed));
      expect(others).toEqual([
        {
          type: 'MissedOccurrencesSkipped',
          data: { ...base, at: t('01:00', '05.000'), ...range(t('00:07'), t('00:51'), 45), cause: 'superseded' },
        },
      ]);
      expect(closing).toMatchObject({ epoch: 3, activation: 3, fired: [t('01:00')], held: [] });
    });

    it('re-enabling keeps the epoch and its held ranges; instants while disabled are not missed', () => {
      const reenabled = { ...catchUp, revision: 5, activation: 5, activatedAt: t('01:30', '30.000') };
      const { others, closing } = decided(held, tick(t('01:31'), reenabled));
      expect(others).toEqual([]);
      expect(closing).toMatchObject({
        epoch: 1,
        activation: 5,
        fired: [t('01:31')],
        held: [range(t('00:07'), t('00:51'), 45)],
      });
    });
  });

  it('a disabled or deleted Trigger decides nothing', () => {
    spec
      .given([])
      .when(tick(t('00:05'), scheduleTrigger({ enabled: false })))
      .then([]);
    spec
      .given([])
      .when(tick(t('00:05'), scheduleTrigger({ deleted: true })))
      .then([]);
  });

  describe('an outage longer than one scan (PT1S, 12,000 missed instants)', () => {
    const start = '2026-01-01T00:00:00.000Z';
    const secondly = (missed: Parameters<typeof minutely>[0]) =>
      scheduleTrigger({
        activatedAt: start,
        schedule: minutely(missed, { engine: 'interval@1', expression: 'PT1S', start }),
      });
    const now = '2026-01-01T03:20:30.000Z'; // 12,030 instants due; the last 60 within grace

    it('latest fires only the newest of the whole run, across consecutive decisions', () => {
      const trigger = secondly({ policy: 'latest' });
      const first = decided([], tick(now, trigger));
      expect(first.closing).toMatchObject({ fired: [], boundary: '2026-01-01T02:46:40.000Z' });
      expect(first.others[0]!.data).toMatchObject({ count: 10_000, cause: 'latest' });
      const second = decided(first.events, tick(now, trigger));
      expect(second.others[0]!.data).toMatchObject({
        from: '2026-01-01T02:46:41.000Z',
        to: '2026-01-01T03:19:28.000Z',
        count: 1968,
        cause: 'latest',
      });
      expect(second.closing?.fired).toHaveLength(62);
      expect(second.closing?.fired[0]).toBe('2026-01-01T03:19:29.000Z');
    });

    it('catch_up spends its bound once for the whole run', () => {
      const trigger = secondly({ policy: 'catch_up', bound: 5, overflow: 'hold' });
      const first = decided([], tick(now, trigger));
      expect(first.closing).toMatchObject({
        fired: [
          '2026-01-01T00:00:01.000Z',
          '2026-01-01T00:00:02.000Z',
          '2026-01-01T00:00:03.000Z',
          '2026-01-01T00:00:04.000Z',
          '2026-01-01T00:00:05.000Z',
        ],
        missedRun: { fired: 5 },
      });
      const second = decided(first.events, tick(now, trigger));
      expect(second.closing?.fired).toHaveLength(61);
      expect(second.closing?.missedRun).toBeNull();
      expect(second.closing?.held.map((r) => r.count)).toEqual([9995, 1969]);
    });
  });
});
