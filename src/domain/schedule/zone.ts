import { DAY_MS, MINUTE_MS, pad, wallFields, wallMs } from './calendar.js';

/*
 * Offsets come straight from Intl. date-fns-tz's getTimezoneOffset reads its Date through the host's local
 * fields, which would make schedule truth depend on the host zone (SC-1).
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** True when Intl knows the zone by name; fixed offsets such as "+01:00" are not IANA names. */
export function isKnownTimeZone(zone: string): boolean {
  if (zone.trim() === '' || /^[+-]/.test(zone)) return false;
  try {
    formatterFor(zone);
    return true;
  } catch {
    return false;
  }
}

const EN_US_WALL = /^(\d+)\/(\d+)\/(\d+),? (\d+):(\d+):(\d+)$/;

/** Memoized per zone: every minutely Trigger asks for the same minute. Dropped wholesale past its bound. */
const offsets = new Map<string, Map<number, number>>();
const OFFSETS_PER_ZONE = 50_000;
/** The zones whose offset is 0 at every instant in every tz data release. */
const ALWAYS_UTC = new Set(['UTC', 'Etc/UTC']);

/** Offset (local − UTC) in ms in effect at the UTC instant `utc`. */
export function offsetAt(zone: string, utc: number): number {
  if (ALWAYS_UTC.has(zone)) return 0;
  let known = offsets.get(zone);
  if (!known) offsets.set(zone, (known = new Map()));
  const cached = known.get(utc);
  if (cached !== undefined) return cached;
  const offset = intlOffsetAt(zone, utc);
  if (known.size >= OFFSETS_PER_ZONE) known.clear();
  known.set(utc, offset);
  return offset;
}

function intlOffsetAt(zone: string, utc: number): number {
  const formatter = formatterFor(zone);
  // format() is about 3× cheaper than formatToParts(); the parts path covers unusual output.
  const m = EN_US_WALL.exec(formatter.format(utc));
  let local: number;
  if (m) {
    local = wallMs(Number(m[3]), Number(m[1]), Number(m[2]), Number(m[4]) % 24, Number(m[5]), Number(m[6]));
  } else {
    const values: Record<string, number> = {};
    for (const part of formatter.formatToParts(utc)) {
      if (part.type !== 'literal') values[part.type] = Number(part.value);
    }
    local = wallMs(values.year!, values.month!, values.day!, values.hour! % 24, values.minute!, values.second!);
  }
  // Intl drops milliseconds, so compare against the instant floored to the second.
  return local - (utc - (((utc % 1000) + 1000) % 1000));
}

export type LocalResolution =
  | { kind: 'unique'; utc: number; offsetBefore: number; offsetAfter: number }
  | { kind: 'ambiguous'; earlier: number; later: number; offsetBefore: number; offsetAfter: number }
  | { kind: 'nonexistent'; shifted: number; offsetBefore: number; offsetAfter: number };

/**
 * Offsets a day either side bracket any single transition; a wall time is valid under an offset only if that
 * offset is in effect at the resulting instant. None valid: a gap; two: a repeated reading.
 */
export function resolveLocal(zone: string, wall: number): LocalResolution {
  const offsetBefore = offsetAt(zone, wall - DAY_MS);
  const offsetAfter = offsetAt(zone, wall + DAY_MS);
  // The offset at the first guess covers two transitions inside the bracket (rare, but cheap).
  const guessed = offsetAt(zone, wall - offsetBefore);
  if (offsetBefore === offsetAfter && guessed === offsetBefore) {
    return { kind: 'unique', utc: wall - offsetBefore, offsetBefore, offsetAfter };
  }
  const valid = [...new Set([offsetBefore, offsetAfter, guessed])]
    .map((offset) => wall - offset)
    .filter((utc) => offsetAt(zone, utc) === wall - utc)
    .sort((a, b) => a - b);
  if (valid.length === 0) {
    // Keep the pre-transition offset: the reading moves forward by exactly the gap's length.
    return { kind: 'nonexistent', shifted: wall - offsetBefore, offsetBefore, offsetAfter };
  }
  if (valid.length === 1) return { kind: 'unique', utc: valid[0]!, offsetBefore, offsetAfter };
  return { kind: 'ambiguous', earlier: valid[0]!, later: valid[valid.length - 1]!, offsetBefore, offsetAfter };
}

/** RFC 3339 offsets have minute precision: LMT offsets are truncated and the wall part follows the truncated one. */
export function renderLocal(zone: string, utc: number, offset = offsetAt(zone, utc)): string {
  const offsetMinutes = Math.trunc(offset / MINUTE_MS);
  const f = wallFields(utc + offsetMinutes * MINUTE_MS);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return (
    `${pad(f.year, 4)}-${pad(f.month)}-${pad(f.day)}T${pad(f.hour)}:${pad(f.minute)}:${pad(f.second)}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

/** Naive wall-clock value of the instant in the zone (full offset precision). */
export function toWall(zone: string, utc: number): number {
  return utc + offsetAt(zone, utc);
}
