import { validateSchedule, type ScheduleValidationError } from './schedule-definition.js';

function errorsOf(raw: unknown): ScheduleValidationError[] {
  const result = validateSchedule(raw);
  if (result.ok) throw new Error('expected the schedule to be rejected');
  return result.errors;
}

function pointersOf(raw: unknown): string[] {
  return errorsOf(raw).map((e) => e.pointer);
}

const cron = { engine: 'cron@1', expression: '30 2 * * *', timezone: 'Europe/Berlin' };
const interval = { engine: 'interval@1', expression: 'PT90M', timezone: 'UTC', start: '2026-01-01T00:00:00Z' };

describe('SC-1 schedule definitions: defaults', () => {
  it('fills dst, missed, start and end defaults', () => {
    expect(validateSchedule(cron)).toEqual({
      ok: true,
      value: {
        engine: 'cron@1',
        expression: '30 2 * * *',
        timezone: 'Europe/Berlin',
        start: null,
        end: null,
        dst: { nonexistent: 'shift_forward', ambiguous: 'earlier' },
        missed: { policy: 'skip', graceSeconds: 60 },
      },
    });
  });

  it('keeps declared policies and canonicalises start/end to UTC with milliseconds', () => {
    const result = validateSchedule({
      ...cron,
      start: '2026-01-01T01:00:00+01:00',
      end: '2026-12-31T23:59:59.5Z',
      dst: { nonexistent: 'skip', ambiguous: 'both' },
      missed: { policy: 'catch_up', bound: 5 },
    });
    expect(result).toEqual({
      ok: true,
      value: expect.objectContaining({
        start: '2026-01-01T00:00:00.000Z',
        end: '2026-12-31T23:59:59.500Z',
        dst: { nonexistent: 'skip', ambiguous: 'both' },
        missed: { policy: 'catch_up', bound: 5, overflow: 'hold', graceSeconds: 60 },
      }),
    });
  });

  it('accepts the API example block and an interval with its anchor', () => {
    expect(
      validateSchedule({
        engine: 'cron@1',
        expression: '30 2 * * *',
        timezone: 'Europe/Berlin',
        start: '2026-01-01T00:00:00.000Z',
        end: null,
        dst: { nonexistent: 'shift_forward', ambiguous: 'earlier' },
        missed: { policy: 'catch_up', bound: 5, overflow: 'hold' },
      }).ok,
    ).toBe(true);
    expect(validateSchedule(interval).ok).toBe(true);
  });

  it('SC-2 accepts an expression that never matches (valid but inactive)', () => {
    expect(validateSchedule({ ...cron, expression: '0 0 31 2 *' }).ok).toBe(true);
  });
});

describe('SC-1/SC-2 schedule definitions: rejections with JSON pointers', () => {
  it('rejects a non-object block at the root pointer', () => {
    expect(errorsOf('cron')).toEqual([{ pointer: '', message: 'schedule must be an object' }]);
    expect(pointersOf([])).toEqual(['']);
  });

  it('rejects an unknown engine', () => {
    expect(errorsOf({ ...cron, engine: 'cron@2' })).toEqual([
      { pointer: '/engine', message: 'engine must be one of cron@1, interval@1' },
    ]);
  });

  it('rejects an unparsable cron expression with the parser message', () => {
    expect(errorsOf({ ...cron, expression: '61 * * * *' })).toEqual([
      { pointer: '/expression', message: 'minute field element "61": 61 is outside 0–59' },
    ]);
    expect(pointersOf({ ...cron, expression: '' })).toEqual(['/expression']);
    expect(pointersOf({ ...cron, expression: 5 })).toEqual(['/expression']);
  });

  it('rejects unknown or non-IANA time zones', () => {
    for (const timezone of ['Mars/Olympus', '', '+01:00', 42, undefined]) {
      expect(pointersOf({ ...cron, timezone })).toEqual(['/timezone']);
    }
  });

  it('rejects intervals shorter than PT1S or unparsable', () => {
    expect(errorsOf({ ...interval, expression: 'PT0.5S' })[0]).toEqual({
      pointer: '/expression',
      message: '"PT0.5S" is shorter than the minimum interval PT1S',
    });
    expect(pointersOf({ ...interval, expression: 'every 5 minutes' })).toEqual(['/expression']);
    expect(pointersOf({ ...interval, expression: 'P1M' })).toEqual(['/expression']);
  });

  it('requires start as the interval anchor', () => {
    expect(pointersOf({ ...interval, start: null })).toEqual(['/start']);
  });

  it('rejects bad RFC 3339 start/end and end before start', () => {
    expect(pointersOf({ ...cron, start: '2026-02-30T00:00:00Z' })).toEqual(['/start']);
    expect(pointersOf({ ...cron, start: '2026-01-01 00:00:00Z' })).toEqual(['/start']);
    expect(pointersOf({ ...cron, end: '2026-01-01T00:00:00' })).toEqual(['/end']);
    expect(pointersOf({ ...cron, end: 1767225600000 })).toEqual(['/end']);
    expect(errorsOf({ ...cron, start: '2026-06-01T00:00:00Z', end: '2026-05-31T23:59:59Z' })).toEqual([
      { pointer: '/end', message: 'end is before start' },
    ]);
    expect(validateSchedule({ ...cron, start: '2026-06-01T00:00:00Z', end: '2026-06-01T02:00:00+02:00' }).ok).toBe(
      true,
    );
  });

  it('rejects catch_up without a positive integer bound ≤ 1000', () => {
    for (const bound of [undefined, 0, -1, 1.5, 1001, '5']) {
      expect(pointersOf({ ...cron, missed: { policy: 'catch_up', bound } })).toEqual(['/missed/bound']);
    }
    expect(validateSchedule({ ...cron, missed: { policy: 'catch_up', bound: 1000 } }).ok).toBe(true);
  });

  it('rejects negative graceSeconds and bad policy values', () => {
    expect(pointersOf({ ...cron, missed: { policy: 'skip', graceSeconds: -1 } })).toEqual(['/missed/graceSeconds']);
    // SC-5: a grace of a day made a whole outage's instants "on time", fired at once under `skip`
    expect(pointersOf({ ...cron, missed: { policy: 'skip', graceSeconds: 3601 } })).toEqual(['/missed/graceSeconds']);
    expect(pointersOf({ ...cron, missed: { policy: 'skip', graceSeconds: Number.MAX_SAFE_INTEGER } })).toEqual([
      '/missed/graceSeconds',
    ]);
    expect(validateSchedule({ ...cron, missed: { policy: 'skip', graceSeconds: 3600 } }).ok).toBe(true);
    // a 350 KB list of minutes was stored in a definition
    expect(pointersOf({ ...cron, expression: `${Array(50_000).fill('0-59/1').join(',')} * * * *` })).toEqual([
      '/expression',
    ]);
    expect(pointersOf({ ...cron, missed: { policy: 'sometimes' } })).toEqual(['/missed/policy']);
    expect(pointersOf({ ...cron, missed: { policy: 'catch_up', bound: 2, overflow: 'burst' } })).toEqual([
      '/missed/overflow',
    ]);
    expect(pointersOf({ ...cron, dst: { nonexistent: 'shift_back', ambiguous: 'middle' } })).toEqual([
      '/dst/nonexistent',
      '/dst/ambiguous',
    ]);
    expect(pointersOf({ ...cron, dst: 'earlier' })).toEqual(['/dst']);
  });

  it('rejects unknown members so typos never fall back to defaults', () => {
    expect(pointersOf({ ...cron, timeZone: 'UTC' })).toEqual(['/timeZone']);
    expect(pointersOf({ ...cron, dst: { ambigous: 'later' } })).toEqual(['/dst/ambigous']);
    expect(pointersOf({ ...cron, missed: { policy: 'skip', 'grace/s': 1 } })).toEqual(['/missed/grace~1s']);
  });

  it('reports every problem at once', () => {
    expect(
      pointersOf({ engine: 'cron@1', expression: '* * *', timezone: 'Nowhere', missed: { policy: 'catch_up' } }),
    ).toEqual(['/expression', '/timezone', '/missed/bound']);
  });
});
