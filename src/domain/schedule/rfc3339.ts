import { daysInMonth, wallMs, MINUTE_MS } from './calendar.js';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Not Date.parse, which accepts non-RFC forms and rolls 02-30 over; leap seconds have no place on the time line. */
export function parseRfc3339(text: string): number | null {
  const m = typeof text === 'string' ? RFC3339.exec(text) : null;
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes = 0;
  if (!m[8]) {
    const offsetHours = Number(m[10]);
    const offsetMins = Number(m[11]);
    if (offsetHours > 23 || offsetMins > 59) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  return wallMs(year, month, day, hour, minute, second) + millis - offsetMinutes * MINUTE_MS;
}

/** Canonical UTC form used across the API: `2026-03-29T01:30:00.000Z`. */
export function toUtcIso(ms: number): string {
  return new Date(ms).toISOString();
}
