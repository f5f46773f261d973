import { DAY_MS, MINUTE_MS, wallMs } from './calendar.js';
import { compileCron, type CronExpression } from './cron.js';
import { nextCronWall } from './cron-search.js';
import { compileInterval } from './interval.js';
import { parseRfc3339, toUtcIso } from './rfc3339.js';
import { DEFAULT_DST, type DstPolicy, type ScheduleDefinition } from './schedule-definition.js';
import { offsetAt, renderLocal, resolveLocal, toWall } from './zone.js';

export type InstantNote = null | 'shifted_forward' | 'repeated_earlier' | 'repeated_later';

export interface ScheduleInstant {
  /** Canonical UTC instant with milliseconds — the occurrence identity component (SC-3). */
  scheduledAt: string;
  local: string;
  note: InstantNote;
}

export interface InstantOptions {
  /** Maximum number of instants; defaults to DEFAULT_COUNT without `until`, else MAX_INSTANTS. */
  count?: number;
  /** Inclusive upper bound. */
  until?: Date;
}

export const DEFAULT_COUNT = 20;
/** Hard cap per call; page on by passing the last scheduledAt as `after`. */
export const MAX_INSTANTS = 10_000;
/** Ten years covers the longest gap of a satisfiable expression (29 February: 2096 → 2104). */
export const SEARCH_HORIZON_MS = 3653 * DAY_MS;
const LAST_WALL = wallMs(9999, 12, 31, 23, 59);

/** SC-2: pure, so the same definition and tz data give the same instants. */
export function computeInstants(def: ScheduleDefinition, after: Date, options: InstantOptions = {}): ScheduleInstant[] {
  return instantsWith(def, after, options, (zone, utc, note, offset) => instant(zone, utc, note(), offset));
}

/** Without local rendering and DST notes: the materializer decides thousands of schedules per second. */
export function instantTimes(def: ScheduleDefinition, after: Date, options: InstantOptions = {}): number[] {
  return instantsWith(def, after, options, (_zone, utc) => utc);
}

/** How an engine hands out one instant: the note is computed only by callers that want it. */
type Emit<T> = (zone: string, utc: number, note: () => InstantNote, offset?: number) => T;

function instantsWith<T>(def: ScheduleDefinition, after: Date, options: InstantOptions, emit: Emit<T>): T[] {
  const afterMs = after.getTime();
  if (Number.isNaN(afterMs)) throw new RangeError('after must be a valid Date');
  const untilMs = options.until ? options.until.getTime() : Number.POSITIVE_INFINITY;
  if (Number.isNaN(untilMs)) throw new RangeError('until must be a valid Date');
  const count = Math.min(options.count ?? (options.until ? MAX_INSTANTS : DEFAULT_COUNT), MAX_INSTANTS);
  if (!Number.isInteger(count) || count < 0) throw new RangeError('count must be a non-negative integer');

  const startMs = instantOrNull(def.start, 'start');
  const endMs = instantOrNull(def.end, 'end');
  const window: Window = {
    lowerExclusive: startMs === null ? afterMs : Math.max(afterMs, startMs - 1),
    upperInclusive: Math.min(untilMs, endMs ?? Number.POSITIVE_INFINITY),
    count,
  };
  if (count === 0 || window.upperInclusive <= window.lowerExclusive) return [];

  switch (def.engine) {
    case 'cron@1':
      return cronInstants(compileCron(def.expression), def.timezone, def.dst ?? DEFAULT_DST, window, emit);
    case 'interval@1': {
      if (startMs === null) throw new Error('interval@1 needs start as its anchor');
      return intervalInstants(compileInterval(def.expression), startMs, def.timezone, window, emit);
    }
    default:
      throw new Error(`unknown schedule engine ${String((def as { engine: unknown }).engine)}`);
  }
}

interface Window {
  lowerExclusive: number;
  upperInclusive: number;
  count: number;
}

function instantOrNull(value: string | null | undefined, name: string): number | null {
  if (value === undefined || value === null) return null;
  const ms = parseRfc3339(value);
  if (ms === null) throw new RangeError(`${name} is not an RFC 3339 date-time: ${value}`);
  return ms;
}

function instant(zone: string, utc: number, note: InstantNote, offset?: number): ScheduleInstant {
  return { scheduledAt: toUtcIso(utc), local: renderLocal(zone, utc, offset ?? offsetAt(zone, utc)), note };
}

/** Interval instants never move with DST; the note only says the local reading is a repeated one. */
function repeatedNote(zone: string, utc: number): InstantNote {
  const resolution = resolveLocal(zone, toWall(zone, utc));
  if (resolution.kind !== 'ambiguous') return null;
  return resolution.earlier === utc ? 'repeated_earlier' : 'repeated_later';
}

function intervalInstants<T>(stepMs: number, anchor: number, zone: string, window: Window, emit: Emit<T>): T[] {
  const firstK = window.lowerExclusive < anchor ? 0 : Math.floor((window.lowerExclusive - anchor) / stepMs) + 1;
  const result: T[] = [];
  for (let k = firstK; result.length < window.count; k += 1) {
    const utc = anchor + k * stepMs;
    if (utc > window.upperInclusive || utc > LAST_WALL) break;
    result.push(emit(zone, utc, () => repeatedNote(zone, utc)));
  }
  return result;
}

interface Candidate {
  utc: number;
  note: InstantNote;
  /** Offset in force at `utc`, known from the resolution; saves a zone lookup when rendering. */
  offset: number;
}

function candidatesFor(zone: string, wall: number, dst: DstPolicy): { candidates: Candidate[]; floor: number } {
  const r = resolveLocal(zone, wall);
  // Every wall time at or after this one maps to an instant at or after `floor`.
  const floor = wall - Math.max(r.offsetBefore, r.offsetAfter);
  switch (r.kind) {
    case 'unique':
      return { candidates: [{ utc: r.utc, note: null, offset: wall - r.utc }], floor };
    case 'nonexistent':
      const shifted: Candidate = { utc: r.shifted, note: 'shifted_forward', offset: r.offsetAfter };
      return { candidates: dst.nonexistent === 'skip' ? [] : [shifted], floor };
    case 'ambiguous': {
      const earlier: Candidate = { utc: r.earlier, note: 'repeated_earlier', offset: wall - r.earlier };
      const later: Candidate = { utc: r.later, note: 'repeated_later', offset: wall - r.later };
      const chosen = dst.ambiguous === 'earlier' ? [earlier] : dst.ambiguous === 'later' ? [later] : [earlier, later];
      return { candidates: chosen, floor };
    }
  }
}

/**
 * Around transitions wall order and UTC order differ (a shifted 02:30 lands after a real 03:00), so candidates
 * wait in a buffer until no later wall time can produce an earlier instant.
 */
function cronInstants<T>(cron: CronExpression, zone: string, dst: DstPolicy, window: Window, emit: Emit<T>): T[] {
  const result: T[] = [];
  const pending = new Map<number, Candidate>();
  let lastEmitted = Number.NEGATIVE_INFINITY;
  const emitBelow = (limit: number): void => {
    const ready = [...pending.keys()].filter((utc) => utc < limit).sort((a, b) => a - b);
    for (const utc of ready) {
      // Guards identity (SC-3): an instant is never emitted twice or out of order.
      if (result.length < window.count && utc > lastEmitted) {
        const { note, offset } = pending.get(utc)!;
        result.push(emit(zone, utc, () => note, offset));
        lastEmitted = utc;
      }
      pending.delete(utc);
    }
  };

  const lower = window.lowerExclusive;
  const nearbyOffsets = [lower - DAY_MS, lower, lower + DAY_MS].map((utc) => offsetAt(zone, utc));
  // No wall time before this can map past `lower`.
  let searchFrom = lower + Math.min(...nearbyOffsets) - MINUTE_MS;
  let lastProductiveWall = searchFrom;

  while (result.length < window.count) {
    const horizon = Math.min(lastProductiveWall + SEARCH_HORIZON_MS, LAST_WALL);
    const wall = nextCronWall(cron, searchFrom, horizon);
    if (wall === null) break;
    searchFrom = wall + MINUTE_MS;
    const { candidates, floor } = candidatesFor(zone, wall, dst);
    for (const candidate of candidates) {
      const { utc } = candidate;
      if (utc <= lower || utc > window.upperInclusive) continue;
      lastProductiveWall = wall;
      // A shifted instant that coincides with a real one is the real one.
      if (!pending.has(utc) || candidate.note === null) pending.set(utc, candidate);
    }
    emitBelow(floor);
    if (floor > window.upperInclusive) break;
  }
  emitBelow(Number.POSITIVE_INFINITY);
  return result;
}
