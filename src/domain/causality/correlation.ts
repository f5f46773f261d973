import { resolvePointer } from '../shared/json-pointer.js';

/** CA-2: a correlation key longer than this is no key a consumer recorded, so it never links. */
export const MAX_CORRELATION_KEY_LENGTH = 256;

/**
 * CA-2, SU-1: the correlation key a *verified* delivery carries at its source's `correlationPointer`.
 * Only a string or a finite number is a key (a number as its decimal text); anything else — missing,
 * null, an object, an over-long string — is no key. Callers decide trust: this only reads the value.
 */
export function correlationKeyOf(pointer: string | null, payload: unknown): string | null {
  const read = correlationAt(pointer, payload);
  return read.kind === 'key' ? read.key : null;
}

/**
 * CA-2: what a delivery carries at its source's `correlationPointer`: nothing (`absent`: no pointer, or no value
 * there — a root), a usable key, or a value that is there but can name no Operation (`unusable`: empty, over-long,
 * null, a boolean, an object or an array). An unusable value is a correlation that cannot be verified, so its
 * Occurrence is recorded with ancestry `unknown`, never as a clean root (and never linked).
 */
export type CorrelationRead = { kind: 'absent' } | { kind: 'unusable' } | { kind: 'key'; key: string };

export function correlationAt(pointer: string | null, payload: unknown): CorrelationRead {
  if (pointer === null) return { kind: 'absent' };
  const found = resolvePointer(payload, pointer);
  if (!found.found) return { kind: 'absent' };
  const { value } = found;
  const key =
    typeof value === 'string' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
  if (key === null || key.length === 0 || key.length > MAX_CORRELATION_KEY_LENGTH) return { kind: 'unusable' };
  return { kind: 'key', key };
}
