import { isRecord } from '../shared/fields.js';
import { pointerTo } from '../shared/json-pointer.js';
import type { GuardClause, GuardTest } from './guard-clause.js';

/** What a leaf found where a typed test needed something else, or where a pointer could not go on. */
export type GuardFaultKind = 'not_a_number' | 'not_a_string' | 'through_non_object' | 'not_an_index' | 'invalid_clause';

/** JSON type names for evidence: the payload's value itself is never copied into a decision. */
export type JsonType = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';

/** The clause that decided: its pointer inside the guard (`""` is the guard itself), and for a leaf its test. */
export interface DecidingClause {
  clause: string;
  pointer?: string;
  test?: GuardTest;
}

export type GuardOutcome =
  | { result: 'true'; decidedBy: DecidingClause }
  | { result: 'false'; decidedBy: DecidingClause }
  | {
      result: 'fault';
      decidedBy: DecidingClause;
      fault: GuardFaultKind;
      /** For a pointer fault, the part of the pointer that named the non-container. */
      at?: string;
      found?: JsonType;
    };

/**
 * BA-2: a total, pure evaluation of a validated guard over a JSON input: true, false or a fault, never a throw.
 * A missing value is `exists: false` and fails every other test. A typed test on the wrong type (`gt` on a
 * string, `prefix` on a number) or a pointer through a non-container is a fault. Faults dominate: every
 * clause is evaluated, so the outcome never depends on the order of an `all`/`any` list hiding a fault.
 */
export function evaluateGuard(guard: GuardClause, input: unknown): GuardOutcome {
  return evaluate(guard, input, '');
}

function evaluate(clause: unknown, input: unknown, at: string): GuardOutcome {
  if (!isRecord(clause)) return { result: 'fault', decidedBy: { clause: at }, fault: 'invalid_clause' };
  if (Array.isArray(clause.all)) return combine(clause.all, input, pointerTo(at, 'all'), 'all', at);
  if (Array.isArray(clause.any)) return combine(clause.any, input, pointerTo(at, 'any'), 'any', at);
  if ('not' in clause) {
    const inner = evaluate(clause.not, input, `${at}/not`);
    if (inner.result === 'fault') return inner;
    return { result: inner.result === 'true' ? 'false' : 'true', decidedBy: { clause: at } };
  }
  return leaf(clause, input, at);
}

/** `all`: the first fault, else the first false, else true. `any`: the first fault, else the first true, else false. */
function combine(items: unknown[], input: unknown, listAt: string, kind: 'all' | 'any', at: string): GuardOutcome {
  const outcomes = items.map((item, index) => evaluate(item, input, pointerTo(listAt, index)));
  const fault = outcomes.find((o) => o.result === 'fault');
  if (fault) return fault;
  const decisive = kind === 'all' ? 'false' : 'true';
  return (
    outcomes.find((o) => o.result === decisive) ?? {
      result: kind === 'all' ? 'true' : 'false',
      decidedBy: { clause: at },
    }
  );
}

type Lookup =
  | { kind: 'value'; value: unknown }
  | { kind: 'missing' }
  | { kind: 'fault'; fault: GuardFaultKind; at: string; found: JsonType };

function leaf(clause: Record<string, unknown>, input: unknown, at: string): GuardOutcome {
  const pointer = clause.pointer;
  const test = (['equals', 'in', 'exists', 'prefix', 'gt', 'gte', 'lt', 'lte'] as const).find((t) => t in clause);
  if (typeof pointer !== 'string' || test === undefined)
    return { result: 'fault', decidedBy: { clause: at }, fault: 'invalid_clause' };
  const decidedBy: DecidingClause = { clause: at, pointer, test };
  const found = lookup(input, pointer);
  if (found.kind === 'fault')
    return { result: 'fault', decidedBy, fault: found.fault, at: found.at, found: found.found };
  const literal = clause[test];
  const verdict = (holds: boolean): GuardOutcome => ({ result: holds ? 'true' : 'false', decidedBy });
  if (test === 'exists') return verdict((found.kind === 'value') === (literal === true));
  if (found.kind === 'missing') return verdict(false);
  const value = found.value;
  switch (test) {
    case 'equals':
      return verdict(jsonEqual(value, literal));
    case 'in':
      return verdict(Array.isArray(literal) && literal.some((candidate) => jsonEqual(value, candidate)));
    case 'prefix':
      if (typeof value !== 'string') return { result: 'fault', decidedBy, fault: 'not_a_string', found: typeOf(value) };
      return verdict(typeof literal === 'string' && value.startsWith(literal));
    default: {
      if (typeof value !== 'number') return { result: 'fault', decidedBy, fault: 'not_a_number', found: typeOf(value) };
      if (typeof literal !== 'number') return { result: 'fault', decidedBy: { clause: at }, fault: 'invalid_clause' };
      return verdict(compare(test, value, literal));
    }
  }
}

function compare(test: 'gt' | 'gte' | 'lt' | 'lte', value: number, literal: number): boolean {
  switch (test) {
    case 'gt':
      return value > literal;
    case 'gte':
      return value >= literal;
    case 'lt':
      return value < literal;
    case 'lte':
      return value <= literal;
  }
}

/**
 * RFC 6901 over own members only (a payload cannot reach `__proto__` through a pointer). An absent member or
 * an index past the end is missing; a step into a scalar or null, or a member name on an array, is a fault.
 */
function lookup(document: unknown, pointer: string): Lookup {
  if (pointer === '') return { kind: 'value', value: document };
  if (!pointer.startsWith('/')) return { kind: 'fault', fault: 'invalid_clause', at: '', found: typeOf(document) };
  let current: unknown = document;
  let walked = '';
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.split('~1').join('/').split('~0').join('~');
    if (Array.isArray(current)) {
      if (!isIndex(token)) return { kind: 'fault', fault: 'not_an_index', at: walked, found: 'array' };
      if (Number(token) >= current.length) return { kind: 'missing' };
      current = current[Number(token)];
    } else if (isRecord(current)) {
      if (!Object.prototype.hasOwnProperty.call(current, token)) return { kind: 'missing' };
      current = current[token];
    } else {
      return { kind: 'fault', fault: 'through_non_object', at: walked, found: typeOf(current) };
    }
    walked += `/${raw}`;
  }
  return { kind: 'value', value: current };
}

/** `0` or a digit string without a leading zero, short enough to be an exact array index. */
function isIndex(token: string): boolean {
  if (token.length === 0 || token.length > 15 || (token.length > 1 && token[0] === '0')) return false;
  for (const char of token) if (char < '0' || char > '9') return false;
  return true;
}

/** Structural JSON equality, own members only; recursion stops at the depth of the shallower side. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  if (!isRecord(a) || !isRecord(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && jsonEqual(a[key], b[key]));
}

export function typeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    default:
      return 'object';
  }
}
