import type { ScheduleTrigger } from '../schedule/materialization.js';
import type { ScheduleBinding, ScheduleDecision } from '../schedule/schedule-decision.js';

export interface DueSchedule {
  trigger: ScheduleTrigger;
  binding: ScheduleBinding;
  /** The last schedule event the index folded (-1: none): the stream is read from there. */
  scheduleRevision: number;
  /** Compare-and-set on the entry as read, all or nothing where the store allows; ScheduleConflict when it moved. */
  commit(decision: ScheduleDecision): Promise<number>;
}

export interface DueSchedules {
  /** null: not a schedule Trigger, or not indexed yet. */
  find(tenant: string, triggerId: string): Promise<DueSchedule | null>;
}
