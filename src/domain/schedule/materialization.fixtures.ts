import type { ScheduleTrigger } from './materialization.js';
import type { MissedSettings, NormalizedScheduleDefinition } from './schedule-definition.js';
import type { InstantRange, ScheduleEvent, ScheduleMaterialized } from './schedule-events.js';

/** Shared by the schedule decider specs: a minutely UTC schedule on 2026-01-01. */
export const t = (hhmm: string, seconds = '00.000'): string => `2026-01-01T${hhmm}:${seconds}Z`;

export const minutes = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => t(`00:${String(from + i).padStart(2, '0')}`));

export function minutely(
  missed: Partial<MissedSettings> = {},
  over: Partial<NormalizedScheduleDefinition> = {},
): NormalizedScheduleDefinition {
  return {
    engine: 'cron@1',
    expression: '* * * * *',
    timezone: 'UTC',
    start: null,
    end: null,
    dst: { nonexistent: 'shift_forward', ambiguous: 'earlier' },
    missed: { policy: 'skip', graceSeconds: 60, ...missed },
    ...over,
  };
}

export function scheduleTrigger(over: Partial<ScheduleTrigger> = {}): ScheduleTrigger {
  return {
    tenant: 'acme',
    triggerId: 't-1',
    revision: 1,
    epoch: 1,
    activation: 1,
    activatedAt: t('00:00', '30.000'),
    enabled: true,
    deleted: false,
    schedule: minutely(),
    ended: [],
    ...over,
  };
}

export function materialized(
  snapshot: Partial<ScheduleMaterialized['data']> & { boundary: string },
  fired: string[] = [],
  trigger = scheduleTrigger(),
): ScheduleEvent {
  return {
    type: 'ScheduleMaterialized',
    data: {
      tenant: trigger.tenant,
      triggerId: trigger.triggerId,
      at: snapshot.boundary,
      triggerRevision: trigger.revision,
      epoch: trigger.epoch,
      activation: trigger.activation,
      nextDueAt: null,
      held: [],
      missedRun: null,
      lastFiredAt: fired[fired.length - 1] ?? null,
      fired,
      tzdataVersion: '2025b',
      ...snapshot,
    },
  };
}

export const range = (from: string, to: string, count: number): InstantRange => ({ from, to, count });
