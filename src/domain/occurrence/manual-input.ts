import { canonicalJson } from '../shared/canonical-json.js';
import { badRequest, type CommandRejected } from '../shared/errors.js';

/** OC-5: an occurrence is bounded evidence, not a dumping ground. */
export const MAX_MANUAL_INPUT_BYTES = 64 * 1024;

/** OC-5: a manual fire's input is measured as it is stored (canonical JSON); null when within bounds. */
export function manualInputTooLarge(input: unknown): CommandRejected | null {
  if (Buffer.byteLength(canonicalJson(input ?? null)) <= MAX_MANUAL_INPUT_BYTES) return null;
  return badRequest('The input is too large.', [
    { pointer: '/input', message: `input exceeds ${MAX_MANUAL_INPUT_BYTES} bytes` },
  ]);
}
