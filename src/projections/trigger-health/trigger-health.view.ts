import type { OccurrenceView } from '../occurrences/occurrences.queries.js';

export type TriggerHealth = 'ok' | 'degraded' | 'held' | 'disabled';

/**
 * OP-1 `GET /v1/operator/triggers` row. Only fields the read model computes are shown: `executions`
 * counts pending and claimed from the execution streams, `recovery` covers schedule held ranges only,
 * and schedules take `nextFireAt`, `tzdataDrift` and "held" from the schedules read model.
 */
export interface TriggerHealthRow {
  triggerId: string;
  revision: number;
  type: string | null;
  missionId: string | null;
  enabled: boolean;
  deleted: boolean;
  health: TriggerHealth;
  nextFireAt: string | null;
  lastFireAt: string | null;
  lastOccurrence: { occurrenceId: string; status: string; reason: string | null; observedAt: string } | null;
  counts: { observed: number; admitted: number; blocked: Record<string, number> };
  executions: { pending: number; claimed: number };
  tzdataDrift: boolean;
  recovery: Array<{ action: string; method: string; href: string }>;
}

export interface ScheduleHealth {
  engine: string | null;
  tzdataVersion: string | null;
  /** Instants at or before it are decided; null before the schedules read model has the Trigger. */
  boundary: string | null;
  skipped: Array<{ from: string; to: string; count: number }>;
  held: Array<{ from: string; to: string; count: number }>;
}

/** `GET /v1/operator/triggers/{triggerId}`: the row, the 10 newest Occurrences and, for schedules, `schedule`. */
export type TriggerHealthDetail = TriggerHealthRow & { recentOccurrences: OccurrenceView[]; schedule?: ScheduleHealth };
