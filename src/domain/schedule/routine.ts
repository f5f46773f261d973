import type { InstantRange, ScheduleEvent, ScheduleState } from './schedule-events.js';

/** Bounds how many Occurrence streams a reader follows from the recorded boundary. */
export const MAX_ROUTINE_INSTANTS = 60;

/** Varies by id (half to all of the maximum), so lockstep Triggers record their snapshots in different minutes. */
export function routineLimitFor(triggerId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < triggerId.length; i++) hash = Math.imul(hash ^ triggerId.charCodeAt(i), 0x01000193) >>> 0;
  const half = Math.floor(MAX_ROUTINE_INSTANTS / 2);
  return half + (hash % (MAX_ROUTINE_INSTANTS - half + 1));
}

const sameRanges = (a: readonly InstantRange[], b: readonly InstantRange[]): boolean =>
  a.length === b.length && a.every((r, i) => r.from === b[i]!.from && r.to === b[i]!.to && r.count === b[i]!.count);

/**
 * A decision that only fires instants on time says nothing its Occurrences do not, so it may be recorded by
 * them alone: half the events of the steady state. Every MAX_ROUTINE_INSTANTS-th routine instant is recorded.
 */
export function isRoutine(
  previous: ScheduleState,
  events: readonly ScheduleEvent[],
  context: { tzdataVersion: string | null; routineInstants: number; limit?: number },
): boolean {
  if (previous.status === 'absent' || events.length !== 1) return false;
  const [closing] = events;
  if (closing?.type !== 'ScheduleMaterialized') return false;
  const d = closing.data;
  return (
    d.fired.length > 0 &&
    d.epoch === previous.epoch &&
    d.activation === previous.activation &&
    d.missedRun === null &&
    previous.missedRun === null &&
    sameRanges(d.held, previous.held) &&
    d.tzdataVersion === context.tzdataVersion &&
    context.routineInstants + d.fired.length <= (context.limit ?? MAX_ROUTINE_INSTANTS)
  );
}
