import { computeInstants } from './instants.js';
import type { ScheduleDefinition } from './schedule-definition.js';

const utcCron = (expression: string, extra: Partial<ScheduleDefinition> = {}): ScheduleDefinition => ({
  engine: 'cron@1',
  expression,
  timezone: 'UTC',
  ...extra,
});

function at(def: ScheduleDefinition, after: string, count: number): string[] {
  return computeInstants(def, new Date(after), { count }).map((i) => i.scheduledAt);
}

describe('SC-8 leap day', () => {
  it('0 12 29 2 * fires only on 29 February', () => {
    expect(at(utcCron('0 12 29 2 *'), '2026-01-01T00:00:00Z', 2)).toEqual([
      '2028-02-29T12:00:00.000Z',
      '2032-02-29T12:00:00.000Z',
    ]);
  });

  it('crosses the non-leap year 2100 (an eight-year gap)', () => {
    expect(at(utcCron('0 12 29 2 *'), '2096-03-01T00:00:00Z', 1)).toEqual(['2104-02-29T12:00:00.000Z']);
  });

  it('skips ahead by fields instead of scanning minutes', () => {
    const started = performance.now();
    expect(at(utcCron('0 12 29 2 *'), '2001-01-01T00:00:00Z', 20)).toHaveLength(20);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('SC-8 month end', () => {
  it('0 0 31 * * skips 30-day months and February', () => {
    expect(at(utcCron('0 0 31 * *'), '2026-01-01T00:00:00Z', 7)).toEqual([
      '2026-01-31T00:00:00.000Z',
      '2026-03-31T00:00:00.000Z',
      '2026-05-31T00:00:00.000Z',
      '2026-07-31T00:00:00.000Z',
      '2026-08-31T00:00:00.000Z',
      '2026-10-31T00:00:00.000Z',
      '2026-12-31T00:00:00.000Z',
    ]);
  });

  it('0 0 28-31 2 * gives the last days of February, 29th only in leap years', () => {
    expect(at(utcCron('0 0 28-31 2 *'), '2026-01-01T00:00:00Z', 4)).toEqual([
      '2026-02-28T00:00:00.000Z',
      '2027-02-28T00:00:00.000Z',
      '2028-02-28T00:00:00.000Z',
      '2028-02-29T00:00:00.000Z',
    ]);
  });

  it('59 23 30,31 4,6 * ends April and June on the 30th', () => {
    expect(at(utcCron('59 23 30,31 4,6 *'), '2026-01-01T00:00:00Z', 3)).toEqual([
      '2026-04-30T23:59:00.000Z',
      '2026-06-30T23:59:00.000Z',
      '2027-04-30T23:59:00.000Z',
    ]);
  });

  it('SC-2 0 0 31 2 * never matches: valid, inactive, and answered fast', () => {
    const started = performance.now();
    expect(computeInstants(utcCron('0 0 31 2 *'), new Date('2026-01-01T00:00:00Z'), { count: 5 })).toEqual([]);
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe('SC-1 cron@1 fields: names, steps, ranges', () => {
  it('0 9 * JAN,MAR MON-FRI: weekdays of January and March', () => {
    expect(at(utcCron('0 9 * JAN,MAR MON-FRI'), '2026-01-01T00:00:00Z', 3)).toEqual([
      '2026-01-01T09:00:00.000Z',
      '2026-01-02T09:00:00.000Z',
      '2026-01-05T09:00:00.000Z',
    ]);
    expect(at(utcCron('0 9 * jan,mar mon-fri'), '2026-01-30T10:00:00Z', 2)).toEqual([
      '2026-03-02T09:00:00.000Z',
      '2026-03-03T09:00:00.000Z',
    ]);
  });

  it('*/20 8-10/2 * * *: minutes 0,20,40 of hours 8 and 10', () => {
    expect(at(utcCron('*/20 8-10/2 * * *'), '2026-01-01T00:00:00Z', 7)).toEqual([
      '2026-01-01T08:00:00.000Z',
      '2026-01-01T08:20:00.000Z',
      '2026-01-01T08:40:00.000Z',
      '2026-01-01T10:00:00.000Z',
      '2026-01-01T10:20:00.000Z',
      '2026-01-01T10:40:00.000Z',
      '2026-01-02T08:00:00.000Z',
    ]);
  });

  it('5/15 means 5-59/15 and 0 and 7 both mean Sunday', () => {
    expect(at(utcCron('5/15 0 * * 7'), '2026-01-01T00:00:00Z', 5)).toEqual([
      '2026-01-04T00:05:00.000Z',
      '2026-01-04T00:20:00.000Z',
      '2026-01-04T00:35:00.000Z',
      '2026-01-04T00:50:00.000Z',
      '2026-01-11T00:05:00.000Z',
    ]);
    expect(at(utcCron('5/15 0 * * 0'), '2026-01-01T00:00:00Z', 5)).toEqual(
      at(utcCron('5/15 0 * * SUN'), '2026-01-01T00:00:00Z', 5),
    );
  });
});

describe('SC-1 day-of-month / day-of-week OR semantics (Vixie)', () => {
  it('0 0 1 * MON fires on the 1st and on every Monday', () => {
    expect(at(utcCron('0 0 1 * MON'), '2026-01-31T12:00:00Z', 6)).toEqual([
      '2026-02-01T00:00:00.000Z',
      '2026-02-02T00:00:00.000Z',
      '2026-02-09T00:00:00.000Z',
      '2026-02-16T00:00:00.000Z',
      '2026-02-23T00:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
    ]);
  });

  it('a starred day field (even */2) makes it AND: odd days that are Mondays', () => {
    expect(at(utcCron('0 0 */2 * MON'), '2026-02-01T00:00:00Z', 4)).toEqual([
      '2026-02-09T00:00:00.000Z',
      '2026-02-23T00:00:00.000Z',
      '2026-03-09T00:00:00.000Z',
      '2026-03-23T00:00:00.000Z',
    ]);
  });
});

describe('SC-1 start, end, after and until bounds', () => {
  it('instants are ≥ start, ≤ end and strictly after `after`', () => {
    const def = utcCron('0 * * * *', { start: '2026-01-01T05:00:00.000Z', end: '2026-01-01T07:00:00.000Z' });
    expect(at(def, '2025-12-31T00:00:00Z', 10)).toEqual([
      '2026-01-01T05:00:00.000Z',
      '2026-01-01T06:00:00.000Z',
      '2026-01-01T07:00:00.000Z',
    ]);
    expect(at(def, '2026-01-01T05:00:00Z', 10)).toEqual(['2026-01-01T06:00:00.000Z', '2026-01-01T07:00:00.000Z']);
  });

  it('until is inclusive and count limits', () => {
    const def = utcCron('*/15 * * * *');
    expect(
      computeInstants(def, new Date('2026-01-01T00:00:00Z'), { until: new Date('2026-01-01T00:45:00Z') }).map(
        (i) => i.scheduledAt,
      ),
    ).toEqual(['2026-01-01T00:15:00.000Z', '2026-01-01T00:30:00.000Z', '2026-01-01T00:45:00.000Z']);
    expect(at(def, '2026-01-01T00:00:00Z', 1)).toEqual(['2026-01-01T00:15:00.000Z']);
    expect(computeInstants(def, new Date('2026-01-01T00:00:00Z'))).toHaveLength(20);
  });

  it('an `after` with seconds still finds the next whole minute', () => {
    expect(at(utcCron('* * * * *'), '2026-01-01T00:00:30.500Z', 2)).toEqual([
      '2026-01-01T00:01:00.000Z',
      '2026-01-01T00:02:00.000Z',
    ]);
  });
});

describe('SC-1 interval@1', () => {
  const def: ScheduleDefinition = {
    engine: 'interval@1',
    expression: 'PT90M',
    timezone: 'Asia/Kolkata',
    start: '2026-01-01T00:00:00.000Z',
  };

  it('PT90M is anchored at start, inclusive', () => {
    expect(computeInstants(def, new Date('2025-06-01T00:00:00Z'), { count: 3 })).toEqual([
      { scheduledAt: '2026-01-01T00:00:00.000Z', local: '2026-01-01T05:30:00+05:30', note: null },
      { scheduledAt: '2026-01-01T01:30:00.000Z', local: '2026-01-01T07:00:00+05:30', note: null },
      { scheduledAt: '2026-01-01T03:00:00.000Z', local: '2026-01-01T08:30:00+05:30', note: null },
    ]);
  });

  it('continues on the anchor grid after an arbitrary `after`', () => {
    expect(at(def, '2026-01-01T02:00:00Z', 3)).toEqual([
      '2026-01-01T03:00:00.000Z',
      '2026-01-01T04:30:00.000Z',
      '2026-01-01T06:00:00.000Z',
    ]);
    expect(at(def, '2026-01-01T03:00:00Z', 1)).toEqual(['2026-01-01T04:30:00.000Z']);
  });

  it('stops at end', () => {
    expect(at({ ...def, end: '2026-01-01T03:00:00.000Z' }, '2025-01-01T00:00:00Z', 10)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T01:30:00.000Z',
      '2026-01-01T03:00:00.000Z',
    ]);
  });
});
