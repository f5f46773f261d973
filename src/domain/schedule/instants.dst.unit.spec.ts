import { computeInstants, type ScheduleInstant } from './instants.js';
import type { AmbiguousPolicy, NonexistentPolicy, ScheduleDefinition } from './schedule-definition.js';

function cron(
  expression: string,
  timezone: string,
  nonexistent: NonexistentPolicy = 'shift_forward',
  ambiguous: AmbiguousPolicy = 'earlier',
): ScheduleDefinition {
  return { engine: 'cron@1', expression, timezone, dst: { nonexistent, ambiguous } };
}

function between(def: ScheduleDefinition, after: string, until: string): ScheduleInstant[] {
  return computeInstants(def, new Date(after), { until: new Date(until) });
}

describe('SC-8 spring-forward nonexistent local time', () => {
  it('Europe/Berlin 02:30 on 2026-03-29 shifts forward to 03:30 CEST (01:30Z)', () => {
    expect(between(cron('30 2 * * *', 'Europe/Berlin'), '2026-03-28T00:00:00Z', '2026-03-30T23:59:59Z')).toEqual([
      { scheduledAt: '2026-03-28T01:30:00.000Z', local: '2026-03-28T02:30:00+01:00', note: null },
      { scheduledAt: '2026-03-29T01:30:00.000Z', local: '2026-03-29T03:30:00+02:00', note: 'shifted_forward' },
      { scheduledAt: '2026-03-30T00:30:00.000Z', local: '2026-03-30T02:30:00+02:00', note: null },
    ]);
  });

  it('Europe/Berlin under skip has no instant on 2026-03-29', () => {
    const instants = between(
      cron('30 2 * * *', 'Europe/Berlin', 'skip'),
      '2026-03-28T00:00:00Z',
      '2026-03-30T23:59:59Z',
    );
    expect(instants.map((i) => i.scheduledAt)).toEqual(['2026-03-28T01:30:00.000Z', '2026-03-30T00:30:00.000Z']);
  });

  it('America/New_York 02:30 on 2026-03-08 shifts to 03:30 EDT (07:30Z)', () => {
    expect(between(cron('30 2 * * *', 'America/New_York'), '2026-03-07T00:00:00Z', '2026-03-09T23:59:59Z')).toEqual([
      { scheduledAt: '2026-03-07T07:30:00.000Z', local: '2026-03-07T02:30:00-05:00', note: null },
      { scheduledAt: '2026-03-08T07:30:00.000Z', local: '2026-03-08T03:30:00-04:00', note: 'shifted_forward' },
      { scheduledAt: '2026-03-09T06:30:00.000Z', local: '2026-03-09T02:30:00-04:00', note: null },
    ]);
  });

  it('America/New_York under skip drops 2026-03-08', () => {
    const instants = between(
      cron('30 2 * * *', 'America/New_York', 'skip'),
      '2026-03-07T00:00:00Z',
      '2026-03-09T23:59:59Z',
    );
    expect(instants.map((i) => i.scheduledAt)).toEqual(['2026-03-07T07:30:00.000Z', '2026-03-09T06:30:00.000Z']);
  });

  it('a shifted instant equal to a real instant is emitted once, as the real one', () => {
    const instants = between(cron('30 2,3 * * *', 'Europe/Berlin'), '2026-03-28T23:00:00Z', '2026-03-30T23:59:59Z');
    expect(instants).toEqual([
      { scheduledAt: '2026-03-29T01:30:00.000Z', local: '2026-03-29T03:30:00+02:00', note: null },
      { scheduledAt: '2026-03-30T00:30:00.000Z', local: '2026-03-30T02:30:00+02:00', note: null },
      { scheduledAt: '2026-03-30T01:30:00.000Z', local: '2026-03-30T03:30:00+02:00', note: null },
    ]);
  });

  it('every minute of the gap collapses onto distinct shifted instants without duplicates', () => {
    const instants = between(cron('*/20 2-3 * * *', 'Europe/Berlin'), '2026-03-29T00:00:00Z', '2026-03-29T03:00:00Z');
    expect(instants.map((i) => [i.scheduledAt, i.note])).toEqual([
      ['2026-03-29T01:00:00.000Z', null],
      ['2026-03-29T01:20:00.000Z', null],
      ['2026-03-29T01:40:00.000Z', null],
    ]);
  });
});

describe('SC-8 fall-back repeated local time', () => {
  const berlin = (policy: AmbiguousPolicy): ScheduleInstant[] =>
    between(
      cron('30 2 * * *', 'Europe/Berlin', 'shift_forward', policy),
      '2026-10-24T12:00:00Z',
      '2026-10-25T23:59:59Z',
    );

  it('Europe/Berlin 2026-10-25 02:30 under earlier fires at 00:30Z (CEST)', () => {
    expect(berlin('earlier')).toEqual([
      { scheduledAt: '2026-10-25T00:30:00.000Z', local: '2026-10-25T02:30:00+02:00', note: 'repeated_earlier' },
    ]);
  });

  it('under later fires at 01:30Z (CET)', () => {
    expect(berlin('later')).toEqual([
      { scheduledAt: '2026-10-25T01:30:00.000Z', local: '2026-10-25T02:30:00+01:00', note: 'repeated_later' },
    ]);
  });

  it('under both fires twice, in UTC order', () => {
    expect(berlin('both')).toEqual([
      { scheduledAt: '2026-10-25T00:30:00.000Z', local: '2026-10-25T02:30:00+02:00', note: 'repeated_earlier' },
      { scheduledAt: '2026-10-25T01:30:00.000Z', local: '2026-10-25T02:30:00+01:00', note: 'repeated_later' },
    ]);
  });

  it('America/New_York 2026-11-01 01:30: earlier 05:30Z, later 06:30Z', () => {
    const run = (policy: AmbiguousPolicy): string[] =>
      between(
        cron('30 1 * * *', 'America/New_York', 'skip', policy),
        '2026-11-01T00:00:00Z',
        '2026-11-01T23:59:59Z',
      ).map((i) => `${i.scheduledAt} ${i.local} ${i.note}`);
    expect(run('earlier')).toEqual(['2026-11-01T05:30:00.000Z 2026-11-01T01:30:00-04:00 repeated_earlier']);
    expect(run('later')).toEqual(['2026-11-01T06:30:00.000Z 2026-11-01T01:30:00-05:00 repeated_later']);
    expect(run('both')).toEqual([
      '2026-11-01T05:30:00.000Z 2026-11-01T01:30:00-04:00 repeated_earlier',
      '2026-11-01T06:30:00.000Z 2026-11-01T01:30:00-05:00 repeated_later',
    ]);
  });

  it('under both, several repeated wall times interleave by UTC, not by wall order', () => {
    const instants = between(
      cron('*/30 1 * * *', 'America/New_York', 'shift_forward', 'both'),
      '2026-11-01T00:00:00Z',
      '2026-11-02T06:00:00Z',
    );
    expect(instants.map((i) => `${i.scheduledAt} ${i.note}`)).toEqual([
      '2026-11-01T05:00:00.000Z repeated_earlier',
      '2026-11-01T05:30:00.000Z repeated_earlier',
      '2026-11-01T06:00:00.000Z repeated_later',
      '2026-11-01T06:30:00.000Z repeated_later',
      '2026-11-02T06:00:00.000Z null',
    ]);
  });

  it('hourly instants outside the repeated hour are unaffected', () => {
    const instants = between(cron('0 * * * *', 'Europe/Berlin'), '2026-10-24T23:30:00Z', '2026-10-25T02:00:00Z');
    expect(instants.map((i) => `${i.scheduledAt} ${i.local} ${i.note}`)).toEqual([
      '2026-10-25T00:00:00.000Z 2026-10-25T02:00:00+02:00 repeated_earlier',
      '2026-10-25T02:00:00.000Z 2026-10-25T03:00:00+01:00 null',
    ]);
  });
});

describe('SC-8 half-hour offsets and half-hour DST shifts', () => {
  it('Asia/Kolkata 09:00 is 03:30Z', () => {
    expect(computeInstants(cron('0 9 * * *', 'Asia/Kolkata'), new Date('2026-06-01T00:00:00Z'), { count: 2 })).toEqual([
      { scheduledAt: '2026-06-01T03:30:00.000Z', local: '2026-06-01T09:00:00+05:30', note: null },
      { scheduledAt: '2026-06-02T03:30:00.000Z', local: '2026-06-02T09:00:00+05:30', note: null },
    ]);
  });

  it('Australia/Adelaide (+09:30 → +10:30) shifts 02:30 on 2026-10-04 to 03:30', () => {
    expect(between(cron('30 2 * * *', 'Australia/Adelaide'), '2026-10-03T00:00:00Z', '2026-10-04T12:00:00Z')).toEqual([
      { scheduledAt: '2026-10-03T17:00:00.000Z', local: '2026-10-04T03:30:00+10:30', note: 'shifted_forward' },
    ]);
  });

  it('Australia/Lord_Howe 30-minute gap: 02:15 on 2026-10-04 becomes 02:45 +11:00', () => {
    expect(between(cron('15 2 * * *', 'Australia/Lord_Howe'), '2026-10-03T00:00:00Z', '2026-10-04T12:00:00Z')).toEqual([
      { scheduledAt: '2026-10-03T15:45:00.000Z', local: '2026-10-04T02:45:00+11:00', note: 'shifted_forward' },
    ]);
  });

  it('Australia/Lord_Howe 30-minute overlap: 01:45 on 2026-04-05 repeats at 14:45Z and 15:15Z', () => {
    const instants = between(
      cron('45 1 * * *', 'Australia/Lord_Howe', 'shift_forward', 'both'),
      '2026-04-04T00:00:00Z',
      '2026-04-05T12:00:00Z',
    );
    expect(instants).toEqual([
      { scheduledAt: '2026-04-04T14:45:00.000Z', local: '2026-04-05T01:45:00+11:00', note: 'repeated_earlier' },
      { scheduledAt: '2026-04-04T15:15:00.000Z', local: '2026-04-05T01:45:00+10:30', note: 'repeated_later' },
    ]);
  });
});

describe('SC-2 interval instants keep their UTC spacing across DST', () => {
  it('PT30M over the Berlin fall-back hour notes repeated local readings', () => {
    const def: ScheduleDefinition = {
      engine: 'interval@1',
      expression: 'PT30M',
      timezone: 'Europe/Berlin',
      start: '2026-10-25T00:00:00.000Z',
    };
    expect(computeInstants(def, new Date('2026-10-24T00:00:00Z'), { count: 5 })).toEqual([
      { scheduledAt: '2026-10-25T00:00:00.000Z', local: '2026-10-25T02:00:00+02:00', note: 'repeated_earlier' },
      { scheduledAt: '2026-10-25T00:30:00.000Z', local: '2026-10-25T02:30:00+02:00', note: 'repeated_earlier' },
      { scheduledAt: '2026-10-25T01:00:00.000Z', local: '2026-10-25T02:00:00+01:00', note: 'repeated_later' },
      { scheduledAt: '2026-10-25T01:30:00.000Z', local: '2026-10-25T02:30:00+01:00', note: 'repeated_later' },
      { scheduledAt: '2026-10-25T02:00:00.000Z', local: '2026-10-25T03:00:00+01:00', note: null },
    ]);
  });
});
