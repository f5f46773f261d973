import { type GuardClause, validateGuard } from '../guard/guard-clause.js';
import { type FieldReader, isRecord } from '../shared/fields.js';

/**
 * DD-5: one coalescing rule of a Trigger. `match` and `neverCoalesce` are guard clauses (BA-2 grammar, same
 * total evaluator); `resourcePointer` names the resource a group is kept per (null: one group per rule).
 */
export interface CoalesceRule {
  match: GuardClause;
  mode: 'latest';
  windowMs: number;
  resourcePointer: string | null;
  neverCoalesce: GuardClause | null;
}

/** Validation bounds, shared with the OpenAPI schema. */
export const COALESCE_BOUNDS = {
  maxRules: 16,
  minWindowMs: 1,
  maxWindowMs: 3_600_000,
} as const;

/**
 * A group holds at most this many members: the members list is one event and one claim body. A member that
 * finds its group full closes it (as if its window had passed) and opens the next one.
 */
export const MAX_COALESCE_MEMBERS = 1000;

export const COALESCE_MODES = ['latest'] as const;

export function validateCoalesceRule(read: FieldReader, item: unknown, at: string): CoalesceRule | undefined {
  if (!isRecord(item)) return read.fail(at, 'must be an object');
  read.onlyKnown(item, at, ['match', 'mode', 'windowMs', 'resourcePointer', 'neverCoalesce']);
  const before = read.errors.length;
  const match =
    item.match === undefined
      ? read.fail(`${at}/match`, 'match is required')
      : validateGuard(read, item.match, `${at}/match`);
  const neverCoalesce =
    item.neverCoalesce === undefined || item.neverCoalesce === null
      ? null
      : validateGuard(read, item.neverCoalesce, `${at}/neverCoalesce`);
  const mode = read.oneOf(item, at, 'mode', COALESCE_MODES);
  const windowMs = read.integer(item, at, 'windowMs', {
    min: COALESCE_BOUNDS.minWindowMs,
    max: COALESCE_BOUNDS.maxWindowMs,
  });
  const resourcePointer = read.pointer(item, at, 'resourcePointer', false);
  if (read.errors.length !== before || !match || !mode || windowMs === undefined || resourcePointer === undefined)
    return undefined;
  return { match, mode, windowMs, resourcePointer, neverCoalesce: neverCoalesce ?? null };
}
