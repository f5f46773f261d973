import type { DomainEvent } from '../shared/decider.js';

/** A contiguous run of intended instants of one schedule epoch, both ends included (SC-5). */
export interface InstantRange {
  from: string;
  to: string;
  count: number;
}

/**
 * Why instants were not fired: the missed policy (`skip`, `latest`), catch-up overflow under
 * `skip_rest`, an operator dismissal, a schedule change that retired an old epoch's held range, or
 * the cap on held ranges.
 */
export type SkipCause = 'skip' | 'latest' | 'overflow' | 'dismissed' | 'superseded' | 'held_limit';

/**
 * What the materializer needs to resume a schedule. Every recorded decision on `schedule-<id>` ends
 * with a ScheduleMaterialized carrying it, so a reader resumes from the stream's last event instead of
 * folding the whole history; routine fires after it are recorded by their Occurrences only (see
 * routine.ts), and a reader follows those from the recorded boundary.
 */
export interface ScheduleSnapshot {
  /** SC-3 schedule revision epoch the boundary belongs to (the revision that set the schedule block). */
  epoch: number;
  /** Trigger revision of the activation this state has taken into account (creation, schedule change, re-enable). */
  activation: number;
  /** Every instant at or before it is decided (fired, skipped or held); later ones are pending. */
  boundary: string;
  /** First instant after the boundary; null when the schedule has no further instant. */
  nextDueAt: string | null;
  /** Held catch-up ranges waiting for an operator, oldest first. */
  held: InstantRange[];
  /** Catch-up fires already spent on a missed run the previous decision had to stop in (scan cap). */
  missedRun: { fired: number } | null;
  /** The newest instant ever fired. */
  lastFiredAt: string | null;
}

interface ScheduleEventBase {
  tenant: string;
  triggerId: string;
  epoch: number;
  /** The decision time from the database clock (SC-6). */
  at: string;
}

/** Closes every decision: which instants it fired (their OccurrenceObserved share its commit) and the resulting state. */
export type ScheduleMaterialized = DomainEvent<
  'ScheduleMaterialized',
  Omit<ScheduleEventBase, 'epoch'> &
    ScheduleSnapshot & {
      triggerRevision: number;
      fired: string[];
      /** tz data the instants were computed with (SC-7: may differ from the pinned version). */
      tzdataVersion: string | null;
    }
>;

/** SC-5: missed (or dismissed) instants that will never fire, as a range and a count. */
export type MissedOccurrencesSkipped = DomainEvent<
  'MissedOccurrencesSkipped',
  ScheduleEventBase & InstantRange & { cause: SkipCause; actor?: string; reason?: string }
>;

/** SC-5: catch-up instants beyond the bound, kept for an operator to release or dismiss. */
export type CatchUpHeld = DomainEvent<'CatchUpHeld', ScheduleEventBase & InstantRange>;

/** An operator released these held instants; they fire in order in the same commit. */
export type CatchUpReleased = DomainEvent<
  'CatchUpReleased',
  ScheduleEventBase & InstantRange & { actor: string; reason: string }
>;

export type ScheduleEvent = ScheduleMaterialized | MissedOccurrencesSkipped | CatchUpHeld | CatchUpReleased;

export type ScheduleState = { status: 'absent' } | ({ status: 'materialized' } & ScheduleSnapshot);

export const initialScheduleState: ScheduleState = { status: 'absent' };

/** Range records are history; the closing ScheduleMaterialized carries their effect on the state. */
export function evolveSchedule(state: ScheduleState, event: ScheduleEvent): ScheduleState {
  switch (event.type) {
    case 'ScheduleMaterialized': {
      const { epoch, activation, boundary, nextDueAt, held, missedRun, lastFiredAt } = event.data;
      return { status: 'materialized', epoch, activation, boundary, nextDueAt, held, missedRun, lastFiredAt };
    }
    case 'MissedOccurrencesSkipped':
    case 'CatchUpHeld':
    case 'CatchUpReleased':
      return state;
    default: {
      const _: never = event;
      return state;
    }
  }
}
