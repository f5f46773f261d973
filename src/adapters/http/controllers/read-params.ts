import { isReasonCode } from '../../../domain/admission/reasons.js';
import { InvalidCursor } from '../../../projections/occurrences/cursor.js';
import { type FieldError, problems } from '../problems/problem.js';

const MAX_LIMIT = 500;
const DEFAULT_LIMIT = 100;
const RESOURCE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const NON_NEGATIVE = /^(0|[1-9][0-9]{0,15})$/;

export type RawQuery = Record<string, unknown>;

export interface ReadParams {
  limit: number;
  cursor?: string;
  minPosition?: number;
  triggerId?: string;
  missionId?: string;
  status?: string;
  reason?: string;
}

/** The filters a list takes; parameters it does not take are ignored, as before. */
export interface ListFilters {
  ids?: ReadonlyArray<'triggerId' | 'missionId'>;
  statuses?: readonly string[];
  /** `reason` filters by a stable AD-3 reason code. */
  reasons?: boolean;
}

/** Every problem is reported at once, before any read, with a `?name` pointer: parameters are not body members. */
export function readParams(query: RawQuery, filters: ListFilters = {}): ReadParams {
  const errors: FieldError[] = [];
  const one = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') {
      errors.push({ pointer: `?${name}`, message: `${name} may be given once` });
      return undefined;
    }
    return value;
  };
  const params: ReadParams = { limit: DEFAULT_LIMIT };
  const limit = one('limit');
  if (limit !== undefined) {
    if (NON_NEGATIVE.test(limit) && Number(limit) >= 1 && Number(limit) <= MAX_LIMIT) params.limit = Number(limit);
    else errors.push({ pointer: '?limit', message: `limit must be an integer from 1 to ${MAX_LIMIT}` });
  }
  const minPosition = one('minPosition');
  if (minPosition !== undefined) {
    if (NON_NEGATIVE.test(minPosition) && Number.isSafeInteger(Number(minPosition)))
      params.minPosition = Number(minPosition);
    else errors.push({ pointer: '?minPosition', message: 'minPosition must be a non-negative integer store position' });
  }
  const cursor = one('cursor');
  if (cursor !== undefined) params.cursor = cursor;
  for (const name of filters.ids ?? []) {
    const id = one(name);
    if (id === undefined) continue;
    if (RESOURCE_ID.test(id)) params[name] = id;
    else
      errors.push({
        pointer: `?${name}`,
        message: `${name} is 1–128 characters of A–Z, a–z, 0–9, ".", "_", ":" and "-"`,
      });
  }
  if (filters.statuses) {
    const status = one('status');
    if (status !== undefined) {
      if (filters.statuses.includes(status)) params.status = status;
      else errors.push({ pointer: '?status', message: `status must be one of ${filters.statuses.join(', ')}` });
    }
  }
  if (filters.reasons) {
    const reason = one('reason');
    if (reason !== undefined) {
      if (isReasonCode(reason)) params.reason = reason;
      else errors.push({ pointer: '?reason', message: 'reason must be a stable reason code (AD-3)' });
    }
  }
  if (errors.length > 0) throw problems.badRequest(errors, 'The query parameters are invalid.');
  return params;
}

/** For reads that take no list parameters: `?minPosition` alone, validated as for lists (400 with `?minPosition`). */
export function minPositionOf(query: RawQuery): number | undefined {
  return readParams({ minPosition: query.minPosition }).minPosition;
}

/** api.md: an answer given before the read models reached `?minPosition` says so. */
export function marked<T extends object>(body: T, fresh: boolean): T | (T & { stale: true }) {
  return fresh ? body : { ...body, stale: true };
}

/** A foreign or forged cursor is the client's mistake, not a server fault. */
export async function paged<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof InvalidCursor)
      throw problems.badRequest([{ pointer: '?cursor', message: error.message }], 'The cursor is invalid.');
    throw error;
  }
}
