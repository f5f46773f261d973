import { firstInstantAfter } from '../../domain/schedule/activation.js';
import { parseRfc3339 } from '../../domain/schedule/rfc3339.js';
import type { NormalizedScheduleDefinition } from '../../domain/schedule/schedule-definition.js';
import type {
  InstantRange,
  MissedOccurrencesSkipped,
  ScheduleMaterialized,
  ScheduleSnapshot,
  SkipCause,
} from '../../domain/schedule/schedule-events.js';
import type { ObservedOccurrence } from '../../domain/occurrence/occurrence-events.js';

export interface TriggerKey {
  tenant: string;
  triggerId: string;
}

/** Skipped ranges kept per schedule for the operator view; the stream keeps them all. */
export const KEPT_SKIPPED_RANGES = 20;

/** With the tz data the last recorded decision used (SC-7). */
export type IndexedState = ScheduleSnapshot & { tzdataVersion: string | null };

/** `statePosition` is the compare-and-set token every writer of the row checks; a rebuild yields the same one. */
export interface DueIndexState {
  scheduleRevision: number;
  state: IndexedState | null;
  statePosition: number;
  /** Since the last ScheduleMaterialized: routine fires record no schedule event. */
  routineInstants: number;
  skipped: Array<InstantRange & { cause: SkipCause }>;
  lastPosition: number;
}

export type IndexedEvent = { position: number; revision: number } & (
  | Pick<ScheduleMaterialized, 'type' | 'data'>
  | Pick<MissedOccurrencesSkipped, 'type' | 'data'>
  | {
      type: 'OccurrenceObserved';
      data: Pick<ObservedOccurrence, 'tenant' | 'triggerId' | 'kind' | 'scheduledAt' | 'dedupeIdentity'>;
    }
  | { type: 'CatchUpHeld' | 'CatchUpReleased'; data: { tenant: string; triggerId: string } }
);

const ms = (iso: string): number => parseRfc3339(iso) ?? Number.NaN;

/**
 * Idempotent (a replayed event changes nothing). A schedule Occurrence of the current epoch beyond the boundary
 * advances it: the record of a routine fire, which appends no schedule event.
 */
export function foldDueIndex(
  indexed: DueIndexState,
  schedule: NormalizedScheduleDefinition | null,
  event: IndexedEvent,
): DueIndexState {
  switch (event.type) {
    case 'ScheduleMaterialized': {
      if (event.revision <= indexed.scheduleRevision) return indexed;
      const { epoch, activation, boundary, nextDueAt, held, missedRun, lastFiredAt, tzdataVersion } = event.data;
      const state = { epoch, activation, boundary, nextDueAt, held, missedRun, lastFiredAt, tzdataVersion };
      return {
        ...indexed,
        scheduleRevision: event.revision,
        state,
        statePosition: event.position,
        routineInstants: 0,
        lastPosition: event.position,
      };
    }
    case 'MissedOccurrencesSkipped': {
      if (event.revision <= indexed.scheduleRevision) return indexed;
      const { from, to, count, cause } = event.data;
      const skipped = [...indexed.skipped, { from, to, count, cause }].slice(-KEPT_SKIPPED_RANGES);
      return { ...indexed, scheduleRevision: event.revision, skipped, lastPosition: event.position };
    }
    case 'OccurrenceObserved': {
      const { kind, scheduledAt, dedupeIdentity } = event.data;
      const state = indexed.state;
      if (kind !== 'schedule' || scheduledAt === null || state === null || schedule === null) return indexed;
      if (dedupeIdentity.epoch !== state.epoch || !(ms(scheduledAt) > ms(state.boundary))) return indexed;
      const lastFiredAt =
        state.lastFiredAt !== null && ms(state.lastFiredAt) > ms(scheduledAt) ? state.lastFiredAt : scheduledAt;
      const next = {
        ...state,
        boundary: scheduledAt,
        lastFiredAt,
        nextDueAt: firstInstantAfter(schedule, scheduledAt),
      };
      return {
        ...indexed,
        state: next,
        statePosition: event.position,
        routineInstants: indexed.routineInstants + 1,
        lastPosition: event.position,
      };
    }
    default:
      // CatchUpHeld/CatchUpReleased: their effect arrives with the ScheduleMaterialized that closes the decision
      return indexed;
  }
}
