import type { EventMetadata } from '../ports/event-store.js';
import type { ScheduleEvent } from './schedule-events.js';

/** What an occurrence of a schedule instant is bound to: the Trigger revision the decision saw. */
export interface ScheduleBinding {
  tenant: string;
  triggerId: string;
  triggerRevision: number;
  missionId: string;
  classification: string;
  epoch: number;
}

/** One decision on a schedule stream and the revision it was decided at (-1: the stream did not exist). */
export interface ScheduleDecision {
  binding: ScheduleBinding;
  events: ScheduleEvent[];
  expectedRevision: number;
  now: string;
  metadata?: EventMetadata;
  /** Recorded by its Occurrences alone (see isRoutine): its ScheduleMaterialized is not appended. */
  routine?: boolean;
}

/**
 * A stream of the decision, or the due-index entry it was read from, moved since it was read: nothing
 * of it (SQL stores) or only idempotent Occurrences (EventStoreDB) were written. Decide again.
 */
export class ScheduleConflict extends Error {
  override readonly name = 'ScheduleConflict';
  constructor(cause?: unknown) {
    super('a schedule or occurrence stream moved under the decision', { cause });
  }
}
