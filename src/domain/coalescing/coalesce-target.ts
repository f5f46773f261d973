import { evaluateGuard } from '../guard/evaluate-guard.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { coalesceStream } from '../shared/ids.js';
import { resolvePointer } from '../shared/json-pointer.js';
import type { CoalesceRule } from './coalesce-rule.js';

/** A resource longer than this is no key: it would be copied into every group event. */
const MAX_RESOURCE_CHARS = 1024;

/** The group stream an Occurrence joins, and the rule that put it there. */
export interface CoalesceTarget {
  streamId: string;
  rule: number;
  windowMs: number;
  /** The value at the rule's `resourcePointer` (null: the rule keeps one group per Trigger). */
  resource: string | number | null;
}

export interface TargetOf {
  tenant: string;
  triggerId: string;
  missionId: string;
  input: unknown;
}

/**
 * DD-5: the first rule whose `match` is true groups the Occurrence, unless any rule's `neverCoalesce` is true:
 * a transition that matters (a revoke, a recovery) is never absorbed, whatever rule order says. Anything that
 * is not a plain true (a guard fault in `match` or `neverCoalesce`, a resource that is missing or not a short
 * string or number) decides the Occurrence alone: coalescing fails towards deciding, never towards dropping.
 * Only the server's acceptance order is used later; nothing here reads a time from the payload.
 */
export function coalesceTargetOf(rules: readonly CoalesceRule[], of: TargetOf): CoalesceTarget | null {
  if (rules.length === 0) return null;
  if (rules.some((r) => r.neverCoalesce !== null && evaluateGuard(r.neverCoalesce, of.input).result !== 'false'))
    return null;
  const rule = rules.findIndex((r) => evaluateGuard(r.match, of.input).result === 'true');
  if (rule < 0) return null;
  const { resourcePointer, windowMs } = rules[rule]!;
  const resource = resourcePointer === null ? null : resourceAt(of.input, resourcePointer);
  if (resource === undefined) return null;
  return {
    streamId: coalesceStream(of.tenant, of.triggerId, of.missionId, rule, canonicalJson(resource)),
    rule,
    windowMs,
    resource,
  };
}

function resourceAt(input: unknown, pointer: string): string | number | undefined {
  const found = resolvePointer(input, pointer);
  if (!found.found) return undefined;
  const value = found.value;
  if (typeof value === 'string' && value.length > 0 && value.length <= MAX_RESOURCE_CHARS) return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  return undefined;
}
