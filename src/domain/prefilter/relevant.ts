import { canonicalJson } from '../shared/canonical-json.js';
import { resolvePointer } from '../shared/json-pointer.js';
import { jsonEqual, typeOf } from '../guard/evaluate-guard.js';
import { filterRef, type PrefilterKind } from './prefilter.js';

const MAX_VALUES = 256;
const MAX_LIST_CHARS = 16_384;

/** Evidence shows a short scalar as it was; anything else by its JSON type only (never a payload copy). */
const shown = (value: unknown): Record<string, unknown> =>
  value === null ||
  typeof value === 'boolean' ||
  typeof value === 'number' ||
  (typeof value === 'string' && value.length <= 256)
    ? { value }
    : { found: typeOf(value) };

/** AD-4: terminates with `irrelevant` when the value at `pointer` is not listed; a missing value is inconclusive. */
export const relevantV1: PrefilterKind = {
  id: 'relevant',
  version: 1,
  validate(read, spec, at) {
    read.onlyKnown(spec, at, ['id', 'version', 'pointer', 'in']);
    const before = read.errors.length;
    read.pointer(spec, at, 'pointer', true);
    const list = spec.in;
    let size = Infinity;
    try {
      size = canonicalJson(list).length;
    } catch {
      // not JSON: refused below
    }
    if (!Array.isArray(list) || list.length === 0 || list.length > MAX_VALUES || size > MAX_LIST_CHARS)
      read.fail(
        `${at}/in`,
        `in must be a list of 1 to ${MAX_VALUES} values (at most ${MAX_LIST_CHARS} characters of JSON)`,
      );
    return read.errors.length === before;
  },
  evaluate(spec, context) {
    const pointer = spec.pointer as string;
    const ref = { ...filterRef(spec), triggerRevision: context.triggerRevision, pointer };
    const found = resolvePointer(context.input, pointer);
    if (!found.found) return { outcome: 'inconclusive', evidence: { ...ref, problem: 'value missing' } };
    const listed = (spec.in as unknown[]).some((candidate) => jsonEqual(found.value, candidate));
    const evidence = { ...ref, ...shown(found.value) };
    return listed ? { outcome: 'pass', evidence } : { outcome: 'terminate', reason: 'irrelevant', evidence };
  },
};
