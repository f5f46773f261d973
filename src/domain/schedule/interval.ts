import { DAY_MS, HOUR_MS, MINUTE_MS } from './calendar.js';

/** `start + k·duration` on the UTC time line, so a day is 24 h; years and months are refused (their length varies). */

export const MIN_INTERVAL_MS = 1_000;

export type DurationParseResult = { ok: true; ms: number } | { ok: false; error: string };

const DURATION =
  /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:[.,](\d{1,3}))?S)?)?$/;

export function parseIsoDuration(text: string): DurationParseResult {
  if (typeof text !== 'string') return { ok: false, error: 'duration must be a string' };
  const match = DURATION.exec(text);
  // "P" and "PT" alone, or a dangling "T", carry no value.
  if (!match || text === 'P' || text.endsWith('T')) {
    return { ok: false, error: `"${text}" is not an ISO-8601 duration of the form PnW or PnDTnHnMnS` };
  }
  const [, years, months, weeks, days, hours, minutes, seconds, fraction] = match;
  if (years !== undefined || months !== undefined) {
    return {
      ok: false,
      error: `"${text}": years and months have a calendar-dependent length and are not supported; use weeks, days or time units`,
    };
  }
  if (weeks !== undefined && text !== `P${weeks}W`) {
    return { ok: false, error: `"${text}": weeks (PnW) cannot be combined with other units` };
  }
  const ms =
    Number(weeks ?? 0) * 7 * DAY_MS +
    Number(days ?? 0) * DAY_MS +
    Number(hours ?? 0) * HOUR_MS +
    Number(minutes ?? 0) * MINUTE_MS +
    Number(seconds ?? 0) * 1000 +
    (fraction ? Number(fraction.padEnd(3, '0')) : 0);
  if (!Number.isSafeInteger(ms)) return { ok: false, error: `"${text}" is too long` };
  if (ms < MIN_INTERVAL_MS) return { ok: false, error: `"${text}" is shorter than the minimum interval PT1S` };
  return { ok: true, ms };
}

/** Like parseIsoDuration but throws; for definitions that were already validated. */
export function compileInterval(text: string): number {
  const parsed = parseIsoDuration(text);
  if (!parsed.ok) throw new Error(`invalid interval@1 expression: ${parsed.error}`);
  return parsed.ms;
}
