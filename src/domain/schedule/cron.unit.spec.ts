import { parseCron } from './cron.js';
import { nextCronWall } from './cron-search.js';

function values(expression: string): number[][] {
  const parsed = parseCron(expression);
  if (!parsed.ok) throw new Error(parsed.error);
  const { minute, hour, dayOfMonth, month, dayOfWeek } = parsed.value;
  return [minute, hour, dayOfMonth, month, dayOfWeek].map((field) => [...field.values]);
}

function error(expression: string): string {
  const parsed = parseCron(expression);
  if (parsed.ok) throw new Error(`expected "${expression}" to be rejected`);
  return parsed.error;
}

describe('SC-1 cron@1 parsing', () => {
  it('expands *, ranges, steps and lists', () => {
    expect(values('*/15 1-3,22 1,15 */4 *')).toEqual([
      [0, 15, 30, 45],
      [1, 2, 3, 22],
      [1, 15],
      [1, 5, 9],
      [0, 1, 2, 3, 4, 5, 6],
    ]);
    expect(values('10-40/10 0 1 1 1')[0]).toEqual([10, 20, 30, 40]);
    expect(values('50/3 0 1 1 1')[0]).toEqual([50, 53, 56, 59]);
  });

  it('accepts month and day names case-insensitively, in lists and ranges', () => {
    expect(values('0 0 * jan,Mar,DEC mon-FRI').slice(3)).toEqual([
      [1, 3, 12],
      [1, 2, 3, 4, 5],
    ]);
    expect(values('0 0 * FEB-APR/2 SAT,SUN').slice(3)).toEqual([
      [2, 4],
      [0, 6],
    ]);
  });

  it('treats day-of-week 7 as Sunday', () => {
    expect(values('0 0 * * 7')[4]).toEqual([0]);
    expect(values('0 0 * * 5-7')[4]).toEqual([0, 5, 6]);
  });

  it('records the Vixie star flag, also for */n', () => {
    const parsed = parseCron('0 0 */2 * 1');
    expect(parsed.ok && [parsed.value.dayOfMonth.star, parsed.value.dayOfWeek.star]).toEqual([true, false]);
  });

  it('tolerates surrounding and repeated whitespace', () => {
    expect(values('  0   9 * *  1 ')[1]).toEqual([9]);
  });

  it.each([
    ['0 9 * *', /needs 5 fields.*got 4/],
    ['0 9 * * * *', /got 6/],
    ['60 * * * *', /minute .*60 is outside 0–59/],
    ['* 24 * * *', /hour .*24 is outside 0–23/],
    ['* * 0 * *', /day-of-month .*0 is outside 1–31/],
    ['* * * 13 *', /month .*13 is outside 1–12/],
    ['* * * * 8', /day-of-week .*8 is outside 0–7/],
    ['5-1 * * * *', /range start 5 is after range end 1/],
    ['*/0 * * * *', /step must be a positive integer/],
    ['*/x * * * *', /step must be a positive integer/],
    ['1,,2 * * * *', /empty list element/],
    ['* * * FOO *', /"FOO" is not a valid value/],
    ['* * * * MONDAY', /"MONDAY" is not a valid value/],
    ['MON * * * *', /minute .*"MON" is not a valid value/],
    ['1-2-3 * * * *', /not a valid range/],
    ['*/2/3 * * * *', /more than one "\/"/],
    ['@daily', /needs 5 fields/],
    ['? * * * *', /not a valid value/],
  ])('rejects %s with a descriptive error', (expression, message) => {
    expect(error(expression)).toMatch(message);
  });
});

describe('SC-2 cron@1 wall-clock search', () => {
  const expr = (text: string) => {
    const parsed = parseCron(text);
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.value;
  };

  it('finds the next matching naive minute, inclusive of the start minute', () => {
    const from = Date.UTC(2026, 0, 1, 9, 0);
    expect(nextCronWall(expr('0 9 * * *'), from, from + 86_400_000 * 2)).toBe(from);
    expect(nextCronWall(expr('0 9 * * *'), from + 1, from + 86_400_000 * 2)).toBe(Date.UTC(2026, 0, 2, 9, 0));
  });

  it('returns null beyond the horizon', () => {
    const from = Date.UTC(2026, 0, 1);
    expect(nextCronWall(expr('0 0 1 6 *'), from, Date.UTC(2026, 4, 31))).toBeNull();
    expect(nextCronWall(expr('0 0 1 6 *'), from, Date.UTC(2026, 5, 1))).toBe(Date.UTC(2026, 5, 1));
  });

  it('handles years before 100 without Date.UTC century remapping', () => {
    const from = Date.UTC(2000, 0, 1) - 1946 * 365.2425 * 86_400_000;
    const found = nextCronWall(expr('0 0 29 2 *'), from, from + 10 * 366 * 86_400_000);
    expect(found === null ? null : new Date(found).toISOString()).toBe('0056-02-29T00:00:00.000Z');
  });
});
