import { correlationKeyOf, MAX_CORRELATION_KEY_LENGTH } from '../causality/correlation.js';
import type { ObservedOccurrence } from '../occurrence/occurrence-events.js';
import { isRecord } from '../shared/fields.js';
import { isJsonPointer, pointerTo, resolvePointer } from '../shared/json-pointer.js';
import type { FieldError } from '../shared/result.js';
import type { FieldValue, SubscriptionMatch } from './subscription-events.js';

export const MAX_MATCH_FIELDS = 16;
export const MAX_POINTER_LENGTH = 256;
export const MAX_FIELD_STRING_LENGTH = 256;

/** SU-1: bounded, total, and never matching everything (an empty match is refused). */
export function validateMatch(raw: unknown): { match: SubscriptionMatch; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const match: SubscriptionMatch = {};
  if (!isRecord(raw)) return { match, errors: [{ pointer: '/match', message: 'match must be an object' }] };
  for (const name of Object.keys(raw))
    if (name !== 'correlationKey' && name !== 'fields')
      errors.push({ pointer: `/match/${name}`, message: 'match takes correlationKey and fields only' });
  const { correlationKey, fields } = raw;
  if (correlationKey !== undefined) {
    if (
      typeof correlationKey !== 'string' ||
      correlationKey.length === 0 ||
      correlationKey.length > MAX_CORRELATION_KEY_LENGTH
    )
      errors.push({
        pointer: '/match/correlationKey',
        message: `correlationKey must be a string of 1 to ${MAX_CORRELATION_KEY_LENGTH} characters`,
      });
    else match.correlationKey = correlationKey;
  }
  if (fields !== undefined) {
    if (!isRecord(fields)) errors.push({ pointer: '/match/fields', message: 'fields must be an object' });
    else {
      const entries = Object.entries(fields);
      if (entries.length === 0 || entries.length > MAX_MATCH_FIELDS)
        errors.push({ pointer: '/match/fields', message: `fields must name 1 to ${MAX_MATCH_FIELDS} pointers` });
      const valid: Record<string, FieldValue> = {};
      for (const [pointer, value] of entries.slice(0, MAX_MATCH_FIELDS + 1)) {
        const at = pointerTo('/match/fields', pointer);
        if (!isJsonPointer(pointer) || pointer.length === 0 || pointer.length > MAX_POINTER_LENGTH)
          errors.push({
            pointer: at,
            message: `each key must be a JSON pointer of 1 to ${MAX_POINTER_LENGTH} characters`,
          });
        else if (!isFieldValue(value))
          errors.push({
            pointer: at,
            message: `each value must be a string (at most ${MAX_FIELD_STRING_LENGTH} characters), a finite number, a boolean or null`,
          });
        else valid[pointer] = value;
      }
      match.fields = valid;
    }
  }
  if (correlationKey === undefined && fields === undefined)
    errors.push({ pointer: '/match', message: 'match needs correlationKey or fields' });
  return { match, errors };
}

function isFieldValue(value: unknown): value is FieldValue {
  if (value === null || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'string' && value.length <= MAX_FIELD_STRING_LENGTH;
}

/** What an accepted Occurrence offers a match: its input, and its correlation key when a verified source has one. */
export interface MatchSubject {
  occurrence: Pick<ObservedOccurrence, 'kind' | 'triggerId' | 'auth' | 'input'>;
  /** The delivering source's `correlationPointer` (null: none, or not a verified delivery). */
  correlationPointer: string | null;
}

/**
 * SU-1: only accepted external (webhook) or poll events are matched. A correlation key is trusted only from a
 * verified delivery (CA-2): an unsigned source's value never matches one.
 */
export function matches(match: SubscriptionMatch, subject: MatchSubject): boolean {
  const { occurrence } = subject;
  if (occurrence.kind !== 'webhook' && occurrence.kind !== 'poll') return false;
  if (match.correlationKey !== undefined) {
    const trusted = occurrence.auth.state === 'verified' ? subject.correlationPointer : null;
    if (correlationKeyOf(trusted, occurrence.input) !== match.correlationKey) return false;
  }
  for (const [pointer, expected] of Object.entries(match.fields ?? {})) {
    const found = resolvePointer(occurrence.input, pointer);
    if (!found.found || found.value !== expected) return false;
  }
  return true;
}
