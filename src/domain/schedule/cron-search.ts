import { dayOfWeek, daysInMonth, wallFields, wallMs } from './calendar.js';
import type { CronExpression, CronField } from './cron.js';

/** Vixie day rule: AND when either day field is starred, otherwise OR. */
export function cronDayMatches(cron: CronExpression, year: number, month: number, day: number): boolean {
  const domOk = cron.dayOfMonth.allowed[day] === true;
  const dowOk = cron.dayOfWeek.allowed[dayOfWeek(year, month, day)] === true;
  return cron.dayOfMonth.star || cron.dayOfWeek.star ? domOk && dowOk : domOk || dowOk;
}

function nextValue(field: CronField, from: number): number | undefined {
  return field.values.find((value) => value >= from);
}

/** Skips months, days and hours that cannot match in one step: a leap-day expression costs a few steps a year. */
export function nextCronWall(cron: CronExpression, fromWall: number, horizonWall: number): number | null {
  const start = wallFields(Math.ceil(fromWall / 60_000) * 60_000);
  let { year, month, day, hour, minute } = start;
  const nextMonth = (): void => {
    month += 1;
    if (month > 12) {
      month = 1;
      year += 1;
    }
    day = 1;
    hour = 0;
    minute = 0;
  };
  const nextDay = (): void => {
    day += 1;
    hour = 0;
    minute = 0;
  };
  for (;;) {
    if (wallMs(year, month, day, hour, minute) > horizonWall) return null;
    if (!cron.month.allowed[month]) {
      const candidate = nextValue(cron.month, month);
      if (candidate === undefined) {
        year += 1;
        month = cron.month.values[0]!;
      } else {
        month = candidate;
      }
      day = 1;
      hour = 0;
      minute = 0;
      continue;
    }
    if (day > daysInMonth(year, month)) {
      nextMonth();
      continue;
    }
    if (!cronDayMatches(cron, year, month, day)) {
      nextDay();
      continue;
    }
    const matchedHour = nextValue(cron.hour, hour);
    if (matchedHour === undefined) {
      nextDay();
      continue;
    }
    if (matchedHour !== hour) {
      hour = matchedHour;
      minute = 0;
    }
    const matchedMinute = nextValue(cron.minute, minute);
    if (matchedMinute === undefined) {
      hour += 1;
      minute = 0;
      continue;
    }
    return wallMs(year, month, day, hour, matchedMinute);
  }
}
