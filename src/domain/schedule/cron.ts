/**
 * `cron@1`, Vixie semantics. Per field: `*`, `n`, `a-b`, `*\/s`, `a-b/s`, `a/s` (= `a-max/s`) and comma lists;
 * month and day names wherever a number may be; day-of-week 7 is Sunday; no `@daily`, `?`, `L`, `W` or `#`.
 */

export interface CronField {
  readonly values: readonly number[];
  readonly allowed: readonly boolean[];
  /** Vixie's "star" flag: the field text starts with `*`. */
  readonly star: boolean;
}

export interface CronExpression {
  readonly source: string;
  readonly minute: CronField;
  readonly hour: CronField;
  readonly dayOfMonth: CronField;
  readonly month: CronField;
  /** Values 0–6; 7 is folded into 0. */
  readonly dayOfWeek: CronField;
}

export type CronParseResult = { ok: true; value: CronExpression } | { ok: false; error: string };

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
  namesFrom?: number;
}

const MONTH_NAMES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES, namesFrom: 1 },
  { name: 'day-of-week', min: 0, max: 7, names: DAY_NAMES, namesFrom: 0 },
];

class CronSyntaxError extends Error {}

export function parseCron(expression: string): CronParseResult {
  if (typeof expression !== 'string') return { ok: false, error: 'cron expression must be a string' };
  const parts = expression
    .trim()
    .split(/\s+/)
    .filter((part) => part !== '');
  if (parts.length !== 5) {
    return {
      ok: false,
      error: `cron expression needs 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`,
    };
  }
  try {
    const [minute, hour, dayOfMonth, month, rawDayOfWeek] = parts.map((part, i) => parseField(part, FIELDS[i]!));
    const dayOfWeek = foldSunday(rawDayOfWeek!);
    return {
      ok: true,
      value: {
        source: parts.join(' '),
        minute: minute!,
        hour: hour!,
        dayOfMonth: dayOfMonth!,
        month: month!,
        dayOfWeek,
      },
    };
  } catch (error) {
    if (error instanceof CronSyntaxError) return { ok: false, error: error.message };
    throw error;
  }
}

/** Compiled expressions are immutable, so a materializer deciding thousands of Triggers parses each text once. */
const compiled = new Map<string, CronExpression>();
const COMPILED_LIMIT = 10_000;

/** Throws: for definitions that were already validated. */
export function compileCron(expression: string): CronExpression {
  const known = compiled.get(expression);
  if (known) return known;
  const parsed = parseCron(expression);
  if (!parsed.ok) throw new Error(`invalid cron@1 expression: ${parsed.error}`);
  if (compiled.size >= COMPILED_LIMIT) compiled.clear();
  compiled.set(expression, parsed.value);
  return parsed.value;
}

function parseField(text: string, spec: FieldSpec): CronField {
  const allowed: boolean[] = new Array<boolean>(spec.max + 1).fill(false);
  for (const item of text.split(',')) {
    if (item === '') throw new CronSyntaxError(`${spec.name} field "${text}" has an empty list element`);
    for (const value of expandItem(item, spec)) allowed[value] = true;
  }
  return toField(allowed, text.startsWith('*'));
}

function toField(allowed: boolean[], star: boolean): CronField {
  const values: number[] = [];
  allowed.forEach((on, value) => {
    if (on) values.push(value);
  });
  return { values, allowed, star };
}

function foldSunday(field: CronField): CronField {
  const allowed = field.allowed.slice(0, 7);
  if (field.allowed[7]) allowed[0] = true;
  return toField(allowed, field.star);
}

function expandItem(item: string, spec: FieldSpec): number[] {
  const [rangePart, stepPart, extra] = item.split('/');
  if (extra !== undefined) throw new CronSyntaxError(`${spec.name} field element "${item}" has more than one "/"`);
  let step = 1;
  if (stepPart !== undefined) {
    if (!/^\d+$/.test(stepPart) || Number(stepPart) === 0) {
      throw new CronSyntaxError(`${spec.name} field element "${item}": step must be a positive integer`);
    }
    step = Number(stepPart);
  }
  let from: number;
  let to: number;
  if (rangePart === '*') {
    [from, to] = [spec.min, spec.max];
  } else {
    const bounds = rangePart!.split('-');
    if (bounds.length > 2) throw new CronSyntaxError(`${spec.name} field element "${item}" is not a valid range`);
    from = parseValue(bounds[0]!, spec, item);
    // `a/s` runs to the field's maximum; a bare `a` is the single value.
    to = bounds.length === 2 ? parseValue(bounds[1]!, spec, item) : stepPart !== undefined ? spec.max : from;
    if (from > to) {
      throw new CronSyntaxError(`${spec.name} field element "${item}": range start ${from} is after range end ${to}`);
    }
  }
  const values: number[] = [];
  for (let value = from; value <= to; value += step) values.push(value);
  return values;
}

function parseValue(token: string, spec: FieldSpec, item: string): number {
  let value: number;
  if (/^\d+$/.test(token)) {
    value = Number(token);
  } else if (spec.names && /^[a-z]{3}$/i.test(token) && spec.names.includes(token.toUpperCase())) {
    value = spec.names.indexOf(token.toUpperCase()) + spec.namesFrom!;
  } else {
    const hint = spec.names ? ` (numbers or ${spec.names[0]}–${spec.names[spec.names.length - 1]})` : '';
    throw new CronSyntaxError(`${spec.name} field element "${item}": "${token}" is not a valid value${hint}`);
  }
  if (value < spec.min || value > spec.max) {
    throw new CronSyntaxError(`${spec.name} field element "${item}": ${value} is outside ${spec.min}–${spec.max}`);
  }
  return value;
}
