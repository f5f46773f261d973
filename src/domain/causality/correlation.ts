import { resolvePointer } from '../shared/json-pointer.js';

/** CA-2: a correlation key longer than this is no key a consumer recorded, so it never links. */
export const MAX_CORRELATION_KEY_LENGTH = 256;

/**
 * CA-2, SU-1: the correlation key a *verified* delivery carries at its source's `correlationPointer`.
 * Only a string or a finite number is a key (a number as its decimal text); anything else — missing,
 * null, an object, an over-long string — is no key. Callers decide trust: this only reads the value.
 */
export function correlationKeyOf(pointer: string | null, payload: unknown): string | null {
  if (pointer === null) return null;
  const found = resolvePointer(payload, pointer);
  if (!found.found) return null;
  const { value } = found;
  const key =
    typeof value === 'string' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
  if (key === null || key.length === 0 || key.length > MAX_CORRELATION_KEY_LENGTH) return null;
  return key;
}
