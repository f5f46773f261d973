/** A wall-clock reading is stored as if it were UTC, so integer arithmetic orders it; zone.ts maps it to instants. */
export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

// 400 Gregorian years are exactly 146 097 days; used to step around Date.UTC's 0–99 → 1900s quirk.
const FOUR_CENTURIES_MS = 146_097 * DAY_MS;

export interface WallFields {
  year: number;
  month: number; // 1–12
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export function wallMs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  if (year >= 0 && year < 100) {
    return Date.UTC(year + 400, month - 1, day, hour, minute, second) - FOUR_CENTURIES_MS;
  }
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

export function wallFields(ms: number): WallFields {
  const date = new Date(ms);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
  };
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : MONTH_DAYS[month - 1]!;
}

/** 0 = Sunday … 6 = Saturday. */
export function dayOfWeek(year: number, month: number, day: number): number {
  const days = Math.floor(wallMs(year, month, day) / DAY_MS);
  // 1970-01-01 was a Thursday.
  return (((days + 4) % 7) + 7) % 7;
}

export function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}
