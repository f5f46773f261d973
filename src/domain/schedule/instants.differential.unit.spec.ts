import fc from 'fast-check';
import { formatInTimeZone } from 'date-fns-tz';
import { computeInstants } from './instants.js';
import type { AmbiguousPolicy, NonexistentPolicy, ScheduleDefinition } from './schedule-definition.js';

/*
 * Differential tests: expressions are generated as structures, rendered to cron text for the engine,
 * and evaluated by an independent brute-force reference that walks the UTC time line minute by
 * minute and never uses the engine's parser, calendar or zone code.
 */

type Item =
  | { kind: 'star'; step?: number }
  | { kind: 'value'; v: number }
  | { kind: 'range'; a: number; b: number; step?: number };
interface FieldSpec {
  min: number;
  max: number;
  names?: readonly string[];
  nameBase?: number;
}
interface Field {
  items: Item[];
  useNames: boolean;
}
interface Expr {
  fields: [Field, Field, Field, Field, Field];
}

const SPECS: readonly FieldSpec[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  {
    min: 1,
    max: 12,
    names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
    nameBase: 1,
  },
  { min: 0, max: 7, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'], nameBase: 0 },
];

function itemArb(min: number, max: number, starWeight: number): fc.Arbitrary<Item> {
  const value = fc.integer({ min, max });
  const step = fc.integer({ min: 1, max: max - min + 1 });
  return fc.oneof(
    { weight: starWeight, arbitrary: fc.constant<Item>({ kind: 'star' }) },
    { weight: 1, arbitrary: step.map<Item>((s) => ({ kind: 'star', step: s })) },
    { weight: 2, arbitrary: value.map<Item>((v) => ({ kind: 'value', v })) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(value, value, fc.option(step, { nil: undefined }))
        .map<Item>(([x, y, s]) => ({ kind: 'range', a: Math.min(x, y), b: Math.max(x, y), step: s })),
    },
  );
}

function fieldArb(spec: FieldSpec, starWeight: number, min = spec.min, max = spec.max): fc.Arbitrary<Field> {
  return fc.record({
    items: fc.array(itemArb(min, max, starWeight), { minLength: 1, maxLength: 3 }),
    useNames: fc.boolean(),
  });
}

/** Star weights per field; heavier day weights keep a short window likely to contain matches. */
const exprArb = (weights: readonly number[], hourMax = 23): fc.Arbitrary<Expr> =>
  fc
    .tuple(
      fieldArb(SPECS[0]!, weights[0]!),
      fieldArb(SPECS[1]!, weights[1]!, 0, hourMax),
      fieldArb(SPECS[2]!, weights[2]!),
      fieldArb(SPECS[3]!, weights[3]!),
      fieldArb(SPECS[4]!, weights[4]!),
    )
    .map((fields) => ({ fields }));

function renderValue(v: number, spec: FieldSpec, useNames: boolean): string {
  const name = spec.names?.[v - spec.nameBase!];
  return useNames && name ? name.toLowerCase() : String(v);
}

function render(expr: Expr): string {
  return expr.fields
    .map((field, i) => {
      const spec = SPECS[i]!;
      return field.items
        .map((item) => {
          if (item.kind === 'star') return item.step ? `*/${item.step}` : '*';
          if (item.kind === 'value') return renderValue(item.v, spec, field.useNames);
          const range = `${renderValue(item.a, spec, field.useNames)}-${renderValue(item.b, spec, field.useNames)}`;
          return item.step ? `${range}/${item.step}` : range;
        })
        .join(',');
    })
    .join(' ');
}

function allowedSet(field: Field, spec: FieldSpec): Set<number> {
  const out = new Set<number>();
  for (const item of field.items) {
    const [from, to, step] =
      item.kind === 'star'
        ? [spec.min, spec.max, item.step ?? 1]
        : item.kind === 'value'
          ? [item.v, item.v, 1]
          : [item.a, item.b, item.step ?? 1];
    for (let v = from; v <= to; v += step) out.add(spec.max === 7 && v === 7 ? 0 : v);
  }
  return out;
}

type WallMatcher = (year: number, month: number, day: number, hour: number, minute: number) => boolean;

/** Vixie: a day field is "starred" when its text starts with `*`; then both day fields must match. */
function referenceMatcher(expr: Expr): WallMatcher {
  const [mi, h, dom, mon, dow] = expr.fields.map((field, i) => allowedSet(field, SPECS[i]!));
  const domStar = expr.fields[2].items[0]!.kind === 'star';
  const dowStar = expr.fields[4].items[0]!.kind === 'star';
  return (year, month, day, hour, minute) => {
    if (!mi!.has(minute) || !h!.has(hour) || !mon!.has(month)) return false;
    const domOk = dom!.has(day);
    const dowOk = dow!.has(new Date(Date.UTC(year, month - 1, day)).getUTCDay());
    return domStar || dowStar ? domOk && dowOk : domOk || dowOk;
  };
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('SC-2 differential: cron@1 in UTC against a minute-by-minute reference', () => {
  it('the first N instants in a 3-day window agree', () => {
    fc.assert(
      fc.property(
        exprArb([2, 3, 5, 8, 5]),
        fc.integer({ min: Date.UTC(1995, 0, 1), max: Date.UTC(2095, 0, 1) }),
        (expr, afterMs) => {
          const N = 25;
          const until = afterMs + 3 * DAY;
          const matches = referenceMatcher(expr);
          const expected: string[] = [];
          for (let t = Math.floor(afterMs / MINUTE) * MINUTE + MINUTE; t <= until && expected.length < N; t += MINUTE) {
            const d = new Date(t);
            if (matches(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes()))
              expected.push(d.toISOString());
          }
          const def: ScheduleDefinition = { engine: 'cron@1', expression: render(expr), timezone: 'UTC' };
          const actual = computeInstants(def, new Date(afterMs), { count: N, until: new Date(until) }).map(
            (i) => i.scheduledAt,
          );
          expect(actual).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});

/*
 * DST zones: the reference reads each UTC minute's wall clock from Intl, learns which wall times
 * occur twice (overlap) or never (gap) by observation, and applies the policies from the spec.
 */
const TRANSITIONS: readonly [string, number][] = [
  ['Europe/Berlin', Date.UTC(2026, 2, 29, 1)],
  ['Europe/Berlin', Date.UTC(2026, 9, 25, 1)],
  ['America/New_York', Date.UTC(2026, 2, 8, 7)],
  ['America/New_York', Date.UTC(2026, 10, 1, 6)],
  ['Australia/Lord_Howe', Date.UTC(2026, 3, 4, 15)],
  ['Australia/Lord_Howe', Date.UTC(2026, 9, 3, 15, 30)],
  ['Australia/Adelaide', Date.UTC(2026, 9, 3, 16, 30)],
];

const wallFormatters = new Map<string, Intl.DateTimeFormat>();
function referenceWall(zone: string, utc: number): number {
  let f = wallFormatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    wallFormatters.set(zone, f);
  }
  const [month, day, year, hour, minute] = f.format(utc).split(/\D+/).map(Number);
  return Date.UTC(year!, month! - 1, day!, hour! % 24, minute!);
}

function referenceDst(
  expr: Expr,
  zone: string,
  after: number,
  until: number,
  nonexistent: NonexistentPolicy,
  ambiguous: AmbiguousPolicy,
): [string, string | null][] {
  const matches = referenceMatcher(expr);
  const matchesWall = (wall: number): boolean => {
    const d = new Date(wall);
    return matches(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes());
  };
  const seen = new Map<number, number[]>();
  const shifted = new Map<number, number>();
  let previous: { utc: number; wall: number } | null = null;
  for (let utc = Math.floor(after / MINUTE) * MINUTE - 4 * HOUR; utc <= until + 4 * HOUR; utc += MINUTE) {
    const wall = referenceWall(zone, utc);
    seen.set(wall, [...(seen.get(wall) ?? []), utc]);
    if (previous && wall - previous.wall > MINUTE) {
      // Skipped wall readings: keep the offset in force before the jump.
      for (let w = previous.wall + MINUTE; w < wall; w += MINUTE) shifted.set(w, w - (previous.wall - previous.utc));
    }
    previous = { utc, wall };
  }
  const out = new Map<number, string | null>();
  for (const [wall, utcs] of seen) {
    if (!matchesWall(wall)) continue;
    if (utcs.length === 1) out.set(utcs[0]!, null);
    else {
      if (ambiguous !== 'later') out.set(utcs[0]!, 'repeated_earlier');
      if (ambiguous !== 'earlier') out.set(utcs[1]!, 'repeated_later');
    }
  }
  if (nonexistent === 'shift_forward') {
    for (const [wall, utc] of shifted) if (matchesWall(wall) && !out.has(utc)) out.set(utc, 'shifted_forward');
  }
  return [...out.entries()]
    .filter(([utc]) => utc > after && utc <= until)
    .sort(([a], [b]) => a - b)
    .map(([utc, note]) => [new Date(utc).toISOString(), note]);
}

describe('SC-8 differential: cron@1 across DST transitions against an observing reference', () => {
  it('instants, notes and local renderings agree for every policy', () => {
    fc.assert(
      fc.property(
        // Transitions happen between 01:00 and 03:00 local in these zones.
        exprArb([1, 3, 20, 20, 20], 4),
        fc.constantFrom(...TRANSITIONS),
        fc.integer({ min: -5 * 60, max: 30 }),
        fc.constantFrom<NonexistentPolicy>('shift_forward', 'skip'),
        fc.constantFrom<AmbiguousPolicy>('earlier', 'later', 'both'),
        (expr, [zone, transition], offsetMinutes, nonexistent, ambiguous) => {
          const after = transition + offsetMinutes * MINUTE + 17_000;
          const until = after + 10 * HOUR;
          const N = 60;
          const expected = referenceDst(expr, zone, after, until, nonexistent, ambiguous).slice(0, N);
          const def: ScheduleDefinition = {
            engine: 'cron@1',
            expression: render(expr),
            timezone: zone,
            dst: { nonexistent, ambiguous },
          };
          const actual = computeInstants(def, new Date(after), { until: new Date(until), count: N });
          expect(actual.map((i) => [i.scheduledAt, i.note])).toEqual(expected);
          for (const i of actual)
            expect(i.local).toBe(formatInTimeZone(new Date(i.scheduledAt), zone, "yyyy-MM-dd'T'HH:mm:ssxxx"));
        },
      ),
      { numRuns: 150 },
    );
  });
});
