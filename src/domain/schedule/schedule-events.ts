import type { DomainEvent } from '../shared/decider.js';

/** A contiguous run of intended instants of one schedule epoch, both ends included (SC-5). */
export interface InstantRange {
  from: string;
  to: string;
  count: number;
}

/**
 * `overflow`: catch-up beyond the bound under `skip_rest`; `superseded`: instants of a retired epoch (its held ranges,
 * and its due instants no scheduler decided before the revision changed the schedule); `disabled` / `deleted`: due
 * instants no scheduler decided before the Trigger was disabled / deleted (see ended-activations.ts).
 */
export const SKIP_CAUSES = [
  'skip',
  'latest',
  'overflow',
  'dismissed',
  'superseded',
  'disabled',
  'deleted',
  'held_limit',
] as const;
export type SkipCause = (typeof SKIP_CAUSES)[number];

/**
 * Every recorded decision ends with a ScheduleMaterialized carrying this, so a reader resumes from the stream's
 * last event, then follows routine fires (recorded by their Occurrences only, see routine.ts) from the boundary.
 */
export interface ScheduleSnapshot {
  /** SC-3: the revision that set the schedule block. */
  epoch: number;
  /** The Trigger revision of the activation this state has taken into account. */
  activation: number;
  /** Every instant at or before it is decided (fired, skipped or held); later ones are pending. */
  boundary: string;
  nextDueAt: string | null;
  /** Held catch-up ranges waiting for an operator, oldest first. */
  held: InstantRange[];
  /** Catch-up fires already spent on a missed run the previous decision had to stop in (scan cap). */
  missedRun: { fired: number } | null;
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
