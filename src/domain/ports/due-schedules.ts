import type { ScheduleTrigger } from '../schedule/materialization.js';
import type { ScheduleBinding, ScheduleDecision } from '../schedule/schedule-decision.js';

/** One schedule Trigger as the scheduler's due index holds it, for a decision taken from its stream. */
export interface DueSchedule {
  trigger: ScheduleTrigger;
  binding: ScheduleBinding;
  /** Revision of the last schedule event the index folded (-1: none): the stream is read from there. */
  scheduleRevision: number;
  /**
   * Commits a decision taken from this entry: its Occurrences, its schedule events and the index entry
   * compared-and-set on what was read here, all or nothing where the store allows. Returns the last
   * position written; throws ScheduleConflict when a stream or the entry moved meanwhile.
   */
  commit(decision: ScheduleDecision): Promise<number>;
}

/** The scheduler's due index, as the decisions taken from a Trigger's stream see it. */
export interface DueSchedules {
  /** null: not a schedule Trigger, or not indexed yet. */
  find(tenant: string, triggerId: string): Promise<DueSchedule | null>;
}
