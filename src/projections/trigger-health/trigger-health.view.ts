import type { OccurrenceView } from '../occurrences/occurrences.queries.js';

export type TriggerHealth = 'ok' | 'degraded' | 'failing' | 'held' | 'disabled';

/**
 * api.md `GET /v1/operator/triggers` row. Provisional until their events exist: `auth` (all null),
 * `executions` (pending and claimed from the execution streams; retrying and dead 0 until delivery retries exist), `recovery` (schedule held ranges only);
 * `health` never yet says "failing"; `counts.duplicate` stays 0 because a duplicate delivery appends
 * no event. Schedules take `nextFireAt`, `tzdataDrift` and "held" from the schedules read model.
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
  auth: { lastResult: string | null; keyId: string | null; at: string | null };
  counts: { observed: number; admitted: number; duplicate: number; blocked: Record<string, number> };
  executions: { pending: number; claimed: number; retrying: number; dead: number };
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
