import type { SkipCause } from '../../domain/schedule/schedule-events.js';
import type { OccurrenceView } from '../occurrences/occurrences.queries.js';

/**
 * OP-1, least to most in need of the operator: `degraded` (something went wrong, e.g. a dead letter), `failing` (the
 * Trigger cannot take its Occurrences in now: its source's deliveries fail authentication, its polls keep failing),
 * `held` (it waits for an operator's decision), `disabled`.
 */
export type TriggerHealth = 'ok' | 'degraded' | 'failing' | 'held' | 'disabled';

const HEALTH_ORDER: readonly TriggerHealth[] = ['ok', 'degraded', 'failing', 'held', 'disabled'];

/** The health a row shows when two of its parts disagree: the one that needs the operator more. */
export const worseHealth = (a: TriggerHealth, b: TriggerHealth): TriggerHealth =>
  HEALTH_ORDER.indexOf(a) >= HEALTH_ORDER.indexOf(b) ? a : b;

/** OP-1. Only fields the read model computes are shown: `recovery` covers held schedule ranges and dead letters. */
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
  /** By disposition; blocked and suppressed (BA-2, AD-4) by reason. */
  counts: {
    observed: number;
    admitted: number;
    blocked: Record<string, number>;
    suppressed: Record<string, number>;
    /** BA-1: members of closed batches whose execution was admitted. */
    batched: number;
    /** DD-5: by reason (`coalesced`). */
    coalesced: Record<string, number>;
    /** SU-1: delivered to a wait-for subscription (no execution of their own). */
    subscribed: number;
    /**
     * PO-2: poll items seen again; the read API adds the webhook redeliveries (ingress counts, beside the log), so
     * both kinds of repeat count alike.
     */
    duplicate: number;
  };
  executions: { pending: number; claimed: number; retrying: number; dead: number };
  tzdataDrift: boolean;
  recovery: Array<{ action: string; method: string; href: string }>;
}

export interface ScheduleHealth {
  engine: string | null;
  tzdataVersion: string | null;
  /** Instants at or before it are decided; null before the schedules read model has the Trigger. */
  boundary: string | null;
  /** `cause` names why they never fire (SC-5). */
  skipped: Array<{ from: string; to: string; count: number; cause: SkipCause }>;
  held: Array<{ from: string; to: string; count: number }>;
}

export type TriggerHealthDetail = TriggerHealthRow & { recentOccurrences: OccurrenceView[]; schedule?: ScheduleHealth };
