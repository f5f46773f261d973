import type { InstantRange, ScheduleEvent, ScheduleState } from './schedule-events.js';

/**
 * Routine instants in a row before a ScheduleMaterialized is recorded anyway. It bounds how many
 * Occurrence streams a reader follows from the recorded boundary to find the real one.
 */
export const MAX_ROUTINE_INSTANTS = 60;

/**
 * The routine limit of one Trigger, between half and all of MAX_ROUTINE_INSTANTS: Triggers that fire
 * in lockstep (every minutely schedule) then record their periodic ScheduleMaterialized in different
 * minutes instead of all at once. A fixed function of the id (FNV-1a), so every scheduler agrees.
 */
export function routineLimitFor(triggerId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < triggerId.length; i++) hash = Math.imul(hash ^ triggerId.charCodeAt(i), 0x01000193) >>> 0;
  const half = Math.floor(MAX_ROUTINE_INSTANTS / 2);
  return half + (hash % (MAX_ROUTINE_INSTANTS - half + 1));
}

const sameRanges = (a: readonly InstantRange[], b: readonly InstantRange[]): boolean =>
  a.length === b.length && a.every((r, i) => r.from === b[i]!.from && r.to === b[i]!.to && r.count === b[i]!.count);

/**
 * A routine decision only fires instants on time and changes nothing else: same epoch and
 * activation, no missed instants, the same held ranges and tz data. Its Occurrences say everything
 * its ScheduleMaterialized would (the boundary is the last of them, the next instant follows from the
 * definition), so the materializer may record it by its Occurrences alone — half the events of the
 * steady state. Every other decision, and every MAX_ROUTINE_INSTANTS-th routine instant, is recorded.
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
