import { type FieldReader, isRecord } from '../shared/fields.js';
import { pointerTo } from '../shared/json-pointer.js';
import type { PrefilterContext, PrefilterKind, PrefilterOutcome, PrefilterReason, PrefilterSpec } from './prefilter.js';
import { relevantV1 } from './relevant.js';
import { unchangedV1 } from './unchanged.js';
import { windowV1 } from './window.js';

/** AD-4: every filter this deployment implements, by `id@version`; a stored revision names one of these. */
export const PREFILTERS: ReadonlyMap<string, PrefilterKind> = new Map(
  [unchangedV1, relevantV1, windowV1].map((kind) => [`${kind.id}@${kind.version}`, kind]),
);

export const MAX_PREFILTERS = 16;

/** One entry of `prefilters`: a known id and version, and that filter's parameters (422 with pointers). */
export function validatePrefilter(read: FieldReader, item: unknown, at: string): PrefilterSpec | undefined {
  if (!isRecord(item)) return read.fail(at, 'must be an object');
  const id = read.string(item, at, 'id', { max: 64 });
  const version = read.integer(item, at, 'version', { min: 1, max: 1000 });
  if (!id || version === undefined) return undefined;
  const kind = PREFILTERS.get(`${id}@${version}`);
  if (!kind)
    return read.fail(
      pointerTo(at, 'id'),
      `unknown prefilter ${id}@${version}; known: ${[...PREFILTERS.keys()].join(', ')}`,
    );
  return kind.validate(read, item, at) ? { ...item, id, version } : undefined;
}

export type PrefiltersVerdict =
  | { outcome: 'pass'; evidence: Record<string, unknown>[] }
  | { outcome: 'terminate'; reason: PrefilterReason; evidence: Record<string, unknown> }
  | { outcome: 'inconclusive'; reason: 'filter_inconclusive'; evidence: Record<string, unknown> };

/**
 * AD-4: the filters in their order; the first that terminates or is inconclusive decides, with its evidence.
 * Passing, every filter's evidence is kept (a first sighting is recorded with `baseline: null`). A filter this
 * deployment does not know, or one that throws, is inconclusive: a filter error is never a pass.
 */
export function runPrefilters(specs: readonly PrefilterSpec[], context: PrefilterContext): PrefiltersVerdict {
  const passed: Record<string, unknown>[] = [];
  for (const [index, spec] of specs.entries()) {
    const outcome = evaluate(spec, context);
    const evidence = { ...outcome.evidence, index };
    if (outcome.outcome === 'pass') {
      passed.push(evidence);
      continue;
    }
    return outcome.outcome === 'terminate'
      ? { outcome: 'terminate', reason: outcome.reason, evidence }
      : { outcome: 'inconclusive', reason: 'filter_inconclusive', evidence };
  }
  return { outcome: 'pass', evidence: passed };
}

function evaluate(spec: PrefilterSpec, context: PrefilterContext): PrefilterOutcome {
  const kind = PREFILTERS.get(`${spec.id}@${spec.version}`);
  const ref = { filter: spec.id, version: spec.version, triggerRevision: context.triggerRevision };
  if (!kind) return { outcome: 'inconclusive', evidence: { ...ref, problem: 'unknown filter' } };
  try {
    return kind.evaluate(spec, context);
  } catch {
    return { outcome: 'inconclusive', evidence: { ...ref, problem: 'filter error' } };
  }
}
