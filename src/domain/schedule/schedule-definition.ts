import { parseCron } from './cron.js';
import { parseIsoDuration } from './interval.js';
import { parseRfc3339, toUtcIso } from './rfc3339.js';
import { ENGINE_VERSIONS, type ScheduleEngine } from './tzdata.js';
import { isKnownTimeZone } from './zone.js';

export type { ScheduleEngine } from './tzdata.js';
export type NonexistentPolicy = 'shift_forward' | 'skip';
export type AmbiguousPolicy = 'earlier' | 'later' | 'both';
export type MissedPolicy = 'skip' | 'latest' | 'catch_up';
export type MissedOverflow = 'hold' | 'skip_rest';

export interface DstPolicy {
  nonexistent: NonexistentPolicy;
  ambiguous: AmbiguousPolicy;
}

export interface MissedSettings {
  policy: MissedPolicy;
  bound?: number;
  overflow?: MissedOverflow;
  graceSeconds?: number;
}

/** SC-1: a schedule is data. */
export interface ScheduleDefinition {
  engine: ScheduleEngine;
  expression: string;
  timezone: string;
  start?: string | null;
  end?: string | null;
  dst?: DstPolicy;
  missed?: MissedSettings;
}

/** What validateSchedule returns: every default written out, start/end canonical UTC. */
export interface NormalizedScheduleDefinition extends ScheduleDefinition {
  start: string | null;
  end: string | null;
  dst: DstPolicy;
  missed: MissedSettings & { graceSeconds: number };
}

/** `pointer` is a JSON pointer relative to the schedule block ("" is the block itself). */
export interface ScheduleValidationError {
  pointer: string;
  message: string;
}

export type ScheduleValidation =
  { ok: true; value: NormalizedScheduleDefinition } | { ok: false; errors: ScheduleValidationError[] };

export const DEFAULT_DST: DstPolicy = { nonexistent: 'shift_forward', ambiguous: 'earlier' };
export const DEFAULT_GRACE_SECONDS = 60;
/**
 * SC-5: an instant later than its grace is missed and goes through the missed policy. A grace of days made every
 * instant of a long outage "on time": a `skip` schedule fired them all at once when the service came back.
 */
export const MAX_GRACE_SECONDS = 3600;
/** Cron lists and durations are short; a 350 KB expression was stored in a definition and sent with every read. */
export const MAX_EXPRESSION_LENGTH = 1024;
export const MAX_CATCH_UP_BOUND = 1000;

const TOP_KEYS = ['engine', 'expression', 'timezone', 'start', 'end', 'dst', 'missed'];
const DST_KEYS = ['nonexistent', 'ambiguous'];
const MISSED_KEYS = ['policy', 'bound', 'overflow', 'graceSeconds'];

type Raw = Record<string, unknown>;

function isObject(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[]): value is T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value);
}

/** SC-2: an expression that cannot be evaluated is refused here; one that never matches is valid. */
export function validateSchedule(raw: unknown): ScheduleValidation {
  const errors: ScheduleValidationError[] = [];
  const fail = (pointer: string, message: string): void => void errors.push({ pointer, message });
  if (!isObject(raw)) return { ok: false, errors: [{ pointer: '', message: 'schedule must be an object' }] };
  rejectUnknown(raw, TOP_KEYS, '', fail);

  const engine = raw.engine;
  if (!oneOf(engine, ENGINE_VERSIONS)) fail('/engine', `engine must be one of ${ENGINE_VERSIONS.join(', ')}`);

  const expression = raw.expression;
  if (typeof expression !== 'string' || expression.trim() === '') {
    fail('/expression', 'expression must be a non-empty string');
  } else if (expression.length > MAX_EXPRESSION_LENGTH) {
    fail('/expression', `expression must be at most ${MAX_EXPRESSION_LENGTH} characters`);
  } else if (engine === 'cron@1') {
    const parsed = parseCron(expression);
    if (!parsed.ok) fail('/expression', parsed.error);
  } else if (engine === 'interval@1') {
    const parsed = parseIsoDuration(expression);
    if (!parsed.ok) fail('/expression', parsed.error);
  }

  const timezone = raw.timezone;
  if (typeof timezone !== 'string' || !isKnownTimeZone(timezone)) {
    fail('/timezone', 'timezone must be an IANA time zone name known to the tz data, e.g. "Europe/Berlin"');
  }

  const start = instantMember(raw, 'start', fail);
  const end = instantMember(raw, 'end', fail);
  if (engine === 'interval@1' && start === null && !errors.some((e) => e.pointer === '/start')) {
    fail('/start', 'interval@1 needs start: it is the anchor of start + k·duration');
  }
  if (typeof start === 'number' && typeof end === 'number' && end < start) fail('/end', 'end is before start');

  const dst = validateDst(raw.dst, fail);
  const missed = validateMissed(raw.missed, fail);

  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      engine: engine as ScheduleEngine,
      expression: (expression as string).trim(),
      timezone: timezone as string,
      start: typeof start === 'number' ? toUtcIso(start) : null,
      end: typeof end === 'number' ? toUtcIso(end) : null,
      dst: dst!,
      missed: missed!,
    },
  };
}

type Fail = (pointer: string, message: string) => void;

function rejectUnknown(raw: Raw, known: readonly string[], base: string, fail: Fail): void {
  for (const key of Object.keys(raw)) {
    if (!known.includes(key)) fail(`${base}/${escapePointer(key)}`, `unknown member "${key}"`);
  }
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** ms, null when absent, undefined when invalid (already reported). */
function instantMember(raw: Raw, key: 'start' | 'end', fail: Fail): number | null | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return null;
  const ms = typeof value === 'string' ? parseRfc3339(value) : null;
  if (ms === null) {
    fail(`/${key}`, `${key} must be an RFC 3339 date-time with offset, e.g. "2026-01-01T00:00:00.000Z"`);
    return undefined;
  }
  return ms;
}

function validateDst(raw: unknown, fail: Fail): DstPolicy | undefined {
  if (raw === undefined || raw === null) return { ...DEFAULT_DST };
  if (!isObject(raw)) {
    fail('/dst', 'dst must be an object');
    return undefined;
  }
  rejectUnknown(raw, DST_KEYS, '/dst', fail);
  const nonexistent = raw.nonexistent ?? DEFAULT_DST.nonexistent;
  const ambiguous = raw.ambiguous ?? DEFAULT_DST.ambiguous;
  let ok = true;
  if (!oneOf(nonexistent, ['shift_forward', 'skip'] as const)) {
    fail('/dst/nonexistent', 'nonexistent must be "shift_forward" or "skip"');
    ok = false;
  }
  if (!oneOf(ambiguous, ['earlier', 'later', 'both'] as const)) {
    fail('/dst/ambiguous', 'ambiguous must be "earlier", "later" or "both"');
    ok = false;
  }
  return ok ? { nonexistent: nonexistent as NonexistentPolicy, ambiguous: ambiguous as AmbiguousPolicy } : undefined;
}

function validateMissed(raw: unknown, fail: Fail): NormalizedScheduleDefinition['missed'] | undefined {
  if (raw === undefined || raw === null) return { policy: 'skip', graceSeconds: DEFAULT_GRACE_SECONDS };
  if (!isObject(raw)) {
    fail('/missed', 'missed must be an object');
    return undefined;
  }
  rejectUnknown(raw, MISSED_KEYS, '/missed', fail);
  let ok = true;
  const bad = (pointer: string, message: string): void => {
    fail(pointer, message);
    ok = false;
  };
  const policy = raw.policy ?? 'skip';
  if (!oneOf(policy, ['skip', 'latest', 'catch_up'] as const))
    bad('/missed/policy', 'policy must be "skip", "latest" or "catch_up"');
  const bound = raw.bound;
  const boundValid = Number.isInteger(bound) && (bound as number) >= 1 && (bound as number) <= MAX_CATCH_UP_BOUND;
  if (bound !== undefined && !boundValid) {
    bad('/missed/bound', `bound must be an integer from 1 to ${MAX_CATCH_UP_BOUND}`);
  } else if (policy === 'catch_up' && bound === undefined) {
    bad('/missed/bound', 'catch_up needs a finite bound (integer from 1 to 1000)');
  }
  const overflow = raw.overflow ?? (policy === 'catch_up' ? 'hold' : undefined);
  if (overflow !== undefined && !oneOf(overflow, ['hold', 'skip_rest'] as const)) {
    bad('/missed/overflow', 'overflow must be "hold" or "skip_rest"');
  }
  const grace = raw.graceSeconds ?? DEFAULT_GRACE_SECONDS;
  if (!Number.isInteger(grace) || (grace as number) < 0 || (grace as number) > MAX_GRACE_SECONDS)
    bad('/missed/graceSeconds', `graceSeconds must be an integer from 0 to ${MAX_GRACE_SECONDS}`);
  if (!ok) return undefined;
  return {
    policy: policy as MissedPolicy,
    ...(bound !== undefined ? { bound: bound as number } : {}),
    ...(overflow !== undefined ? { overflow: overflow as MissedOverflow } : {}),
    graceSeconds: grace as number,
  };
}
