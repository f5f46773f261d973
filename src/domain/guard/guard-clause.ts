import { canonicalJson } from '../shared/canonical-json.js';
import { type FieldReader, isRecord } from '../shared/fields.js';
import { isJsonPointer, pointerTo } from '../shared/json-pointer.js';

/** BA-2 leaf tests, each on the value a JSON pointer names in the validated payload (no code, no regex). */
export const GUARD_TESTS = ['equals', 'in', 'exists', 'prefix', 'gt', 'gte', 'lt', 'lte'] as const;
export type GuardTest = (typeof GUARD_TESTS)[number];
export type OrderTest = 'gt' | 'gte' | 'lt' | 'lte';

export type GuardLeaf =
  | { pointer: string; equals: unknown }
  | { pointer: string; in: unknown[] }
  | { pointer: string; exists: boolean }
  | { pointer: string; prefix: string }
  | { pointer: string; gt: number }
  | { pointer: string; gte: number }
  | { pointer: string; lt: number }
  | { pointer: string; lte: number };

/** BA-2 guard grammar: `all`/`any` nest, `not` negates, leaves test one pointer. */
export type GuardClause = { all: GuardClause[] } | { any: GuardClause[] } | { not: GuardClause } | GuardLeaf;

/**
 * Bounds checked when a definition is validated, so evaluation at admission is cheap whatever the payload:
 * nesting, clauses in all, members of one `all`/`any`, items of one `in`, and the size of each literal.
 */
export const GUARD_BOUNDS = {
  maxDepth: 8,
  maxClauses: 64,
  maxListItems: 32,
  maxInItems: 256,
  /** Characters of a literal's canonical JSON (`equals` value, whole `in` list, `prefix` string). */
  maxValueChars: 4096,
} as const;

const SHAPE =
  'a guard clause is {all:[…]}, {any:[…]}, {not:…} or {pointer, equals | in | exists | prefix | gt | gte | lt | lte}';

/** Validates a guard (422 `invalid_definition` with pointers); `at` is the guard's pointer in the body. */
export function validateGuard(read: FieldReader, value: unknown, at: string): GuardClause | undefined {
  const budget = { clauses: 0 };
  return clause(read, value, at, 1, budget);
}

function clause(
  read: FieldReader,
  value: unknown,
  at: string,
  depth: number,
  budget: { clauses: number },
): GuardClause | undefined {
  if (!isRecord(value)) return read.fail(at, 'a guard clause must be an object');
  if (depth > GUARD_BOUNDS.maxDepth) return read.fail(at, `guard nests deeper than ${GUARD_BOUNDS.maxDepth}`);
  budget.clauses += 1;
  // Reported once, where the limit was crossed; the rest of the guard is not read.
  if (budget.clauses === GUARD_BOUNDS.maxClauses + 1)
    return read.fail(at, `a guard holds at most ${GUARD_BOUNDS.maxClauses} clauses`);
  if (budget.clauses > GUARD_BOUNDS.maxClauses) return undefined;
  const keys = Object.keys(value);
  if (keys.length === 1 && (keys[0] === 'all' || keys[0] === 'any')) {
    const key = keys[0];
    const list = value[key];
    const listAt = pointerTo(at, key);
    if (!Array.isArray(list) || list.length === 0 || list.length > GUARD_BOUNDS.maxListItems)
      return read.fail(listAt, `${key} must be a list of 1 to ${GUARD_BOUNDS.maxListItems} clauses`);
    const items = list.map((item, index) => clause(read, item, pointerTo(listAt, index), depth + 1, budget));
    if (!items.every((item) => item !== undefined)) return undefined;
    return key === 'all' ? { all: items as GuardClause[] } : { any: items as GuardClause[] };
  }
  if (keys.length === 1 && keys[0] === 'not') {
    const inner = clause(read, value.not, `${at}/not`, depth + 1, budget);
    return inner && { not: inner };
  }
  return leaf(read, value, at, keys);
}

function leaf(read: FieldReader, value: Record<string, unknown>, at: string, keys: string[]): GuardLeaf | undefined {
  const tests = keys.filter((key) => key !== 'pointer');
  if (!keys.includes('pointer') || tests.length !== 1) return read.fail(at, SHAPE);
  const test = tests[0]!;
  if (!(GUARD_TESTS as readonly string[]).includes(test))
    return read.fail(pointerTo(at, test), `unknown guard test "${test}" (no code, no regex)`);
  const pointer = value.pointer;
  if (!isJsonPointer(pointer)) return read.fail(`${at}/pointer`, 'pointer must be a JSON pointer starting with "/"');
  const literal = value[test];
  const testAt = pointerTo(at, test);
  if (literal === undefined) return read.fail(testAt, `${test} needs a value`);
  if (!withinSize(literal))
    return read.fail(testAt, `${test} is larger than ${GUARD_BOUNDS.maxValueChars} characters of JSON`);
  switch (test as GuardTest) {
    case 'equals':
      return { pointer, equals: literal };
    case 'in':
      if (!Array.isArray(literal) || literal.length > GUARD_BOUNDS.maxInItems)
        return read.fail(testAt, `in must be a list of at most ${GUARD_BOUNDS.maxInItems} values`);
      return { pointer, in: literal };
    case 'exists':
      return typeof literal === 'boolean'
        ? { pointer, exists: literal }
        : read.fail(testAt, 'exists must be true or false');
    case 'prefix':
      return typeof literal === 'string' ? { pointer, prefix: literal } : read.fail(testAt, 'prefix must be a string');
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return typeof literal === 'number' && Number.isFinite(literal)
        ? ({ pointer, [test]: literal } as GuardLeaf)
        : read.fail(testAt, `${test} must be a finite number`);
  }
}

function withinSize(literal: unknown): boolean {
  try {
    return canonicalJson(literal).length <= GUARD_BOUNDS.maxValueChars;
  } catch {
    // Not JSON (a non-finite number): never a literal a payload could equal.
    return false;
  }
}
