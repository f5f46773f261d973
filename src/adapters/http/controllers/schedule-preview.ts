import { computeInstants, type ScheduleInstant } from '../../../domain/schedule/instants.js';
import { parseRfc3339 } from '../../../domain/schedule/rfc3339.js';
import { type NormalizedScheduleDefinition, validateSchedule } from '../../../domain/schedule/schedule-definition.js';
import { type FieldError, NOT_AN_OBJECT, problems } from '../problems/problem.js';

export const DEFAULT_PREVIEW_COUNT = 20;
export const MAX_PREVIEW_COUNT = 1000;

export interface PreviewAnswer {
  instants: ScheduleInstant[];
  engine: string;
  /** The tz data that computed these instants: this process's. */
  tzdataVersion: string | null;
}

/** `after` and `count` from a body (`/after`) or a query (`?after`): 400 BAD_REQUEST when malformed. */
export function previewWindow(
  after: unknown,
  count: unknown,
  prefix: '/' | '?',
): { after: number | null; count: number } {
  const errors: FieldError[] = [];
  let afterMs: number | null = null;
  if (after !== undefined) {
    afterMs = typeof after === 'string' ? parseRfc3339(after) : null;
    if (afterMs === null)
      errors.push({
        pointer: `${prefix}after`,
        message: 'after must be an RFC 3339 date-time, e.g. "2026-03-29T00:00:00Z"',
      });
  }
  let n = DEFAULT_PREVIEW_COUNT;
  if (count !== undefined) {
    // A query parameter is always text; a body's count must be a JSON number ("3" is a wrong type, not 3).
    n =
      prefix === '?' && typeof count === 'string' && /^[0-9]{1,4}$/.test(count)
        ? Number(count)
        : typeof count === 'number'
          ? count
          : Number.NaN;
    if (!Number.isInteger(n) || n < 1 || n > MAX_PREVIEW_COUNT)
      errors.push({ pointer: `${prefix}count`, message: `count must be an integer from 1 to ${MAX_PREVIEW_COUNT}` });
  }
  if (errors.length > 0) throw problems.badRequest(errors, 'The preview window is invalid.');
  return { after: afterMs, count: n };
}

/** Schedule errors are 422 with pointers relative to the body (`/schedule/expression`); window errors are 400. */
export function readPreviewBody(body: unknown): {
  schedule: NormalizedScheduleDefinition;
  after: number | null;
  count: number;
} {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw problems.badRequest([NOT_AN_OBJECT]);
  const raw = body as Record<string, unknown>;
  const window = previewWindow(raw.after, raw.count, '/');
  if (raw.schedule === undefined || raw.schedule === null)
    throw problems.invalidDefinition([{ pointer: '/schedule', message: 'schedule is required' }]);
  const validated = validateSchedule(raw.schedule);
  if (!validated.ok)
    throw problems.invalidDefinition(
      validated.errors.map((e) => ({ pointer: `/schedule${e.pointer}`, message: e.message })),
    );
  return { schedule: validated.value, ...window };
}

/** SC-2: the same pure calculator the materializer uses. */
export function preview(schedule: NormalizedScheduleDefinition, after: Date, count: number): PreviewAnswer {
  return {
    instants: computeInstants(schedule, after, { count }),
    engine: schedule.engine,
    tzdataVersion: process.versions.tz ?? null,
  };
}
