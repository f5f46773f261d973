import { canonicalJson } from '../shared/canonical-json.js';
import { resolvePointer } from '../shared/json-pointer.js';
import { typeOf } from '../guard/evaluate-guard.js';
import { filterRef, type PrefilterKind, type PrefilterOutcome, type PrefilterSpec } from './prefilter.js';

/** A digest or resource longer than this is not one: copying it into evidence and baselines would be unbounded. */
export const MAX_KEY_CHARS = 1024;

type Resource = { ok: true; resource: string | number; key: string } | { ok: false; problem: string; found?: string };

/** The resource an `unchanged@1` filter keys its baseline by: a string or number in the input. */
export function resourceOf(spec: PrefilterSpec, input: unknown): Resource {
  const found = resolvePointer(input, spec.resourcePointer as string);
  if (!found.found) return { ok: false, problem: 'resource missing' };
  const value = found.value;
  if (typeof value === 'string' && value.length > 0 && value.length <= MAX_KEY_CHARS)
    return { ok: true, resource: value, key: canonicalJson(value) };
  if (typeof value === 'number') return { ok: true, resource: value, key: canonicalJson(value) };
  return { ok: false, problem: 'resource is not a string (1 to 1024 characters) or a number', found: typeOf(value) };
}

/**
 * AD-4: terminates with `unchanged` when the digest equals the last admitted one of the resource. A first
 * sighting passes with `baseline: null`; a missing or non-string digest, or any filter error, is inconclusive.
 */
export const unchangedV1: PrefilterKind = {
  id: 'unchanged',
  version: 1,
  validate(read, spec, at) {
    read.onlyKnown(spec, at, ['id', 'version', 'resourcePointer', 'digestPointer']);
    const before = read.errors.length;
    read.pointer(spec, at, 'resourcePointer', true);
    read.pointer(spec, at, 'digestPointer', true);
    return read.errors.length === before;
  },
  evaluate(spec, context): PrefilterOutcome {
    const ref = { ...filterRef(spec), triggerRevision: context.triggerRevision };
    const resource = resourceOf(spec, context.input);
    if (!resource.ok)
      return { outcome: 'inconclusive', evidence: { ...ref, problem: resource.problem, found: resource.found } };
    const at = { ...ref, resource: resource.resource };
    const found = resolvePointer(context.input, spec.digestPointer as string);
    if (!found.found) return { outcome: 'inconclusive', evidence: { ...at, digest: null, problem: 'digest missing' } };
    const digest = found.value;
    if (typeof digest !== 'string' || digest.length === 0 || digest.length > MAX_KEY_CHARS)
      return {
        outcome: 'inconclusive',
        evidence: {
          ...at,
          digest: null,
          problem: 'digest is not a string of 1 to 1024 characters',
          found: typeOf(digest),
        },
      };
    if (!context.baselines.has(resource.key))
      return { outcome: 'inconclusive', evidence: { ...at, digest, problem: 'baseline not read' } };
    const baseline = context.baselines.get(resource.key) ?? null;
    const evidence = { ...at, digest, baseline };
    // Its own admission retried after a crash between non-atomic appends (EventStoreDB) already left this baseline.
    if (baseline?.occurrenceId === context.occurrenceId)
      return { outcome: 'pass', evidence: { ...evidence, retry: true } };
    if (baseline !== null && baseline.digest === digest) return { outcome: 'terminate', reason: 'unchanged', evidence };
    return { outcome: 'pass', evidence };
  },
};
