import type { ExecutionRequest } from '../occurrence/occurrence-events.js';
import type { ExecutionRedelivered, RecoveryRequested } from './execution-events.js';
import type { SubscriptionMatched, SubscriptionTimedOut } from '../subscription/subscription-events.js';

/** The fields of one Redis Stream entry, in the order the spec lists them (EX-1); a hint, never truth. */
export interface Wakeup {
  executionId: string;
  generation: number;
  attempt: number;
  tenant: string;
  missionId: string;
  triggerId: string;
  lane: string;
  /** SU-1: a claimed execution's wait-for subscription resolved; it reads its subscriptions (no claim to make). */
  subscriptionId?: string;
  subscriptionState?: 'matched' | 'timed_out';
}

/**
 * Log events that make an execution claimable (EX-1, EX-4): its admission (BA-1: a batch's, on its first member's
 * `OccurrenceBatched`), every redelivery and every recovery; SU-1: a claimed execution's subscription resolving.
 */
export const WAKEUP_EVENT_TYPES = [
  'OccurrenceAdmitted',
  'OccurrenceBatched',
  'ExecutionRedelivered',
  'RecoveryRequested',
  'SubscriptionMatched',
  'SubscriptionTimedOut',
] as const;

/** The first delivery of a new execution request is generation 1, attempt 1; later ones say which they are. */
export function wakeupOf(event: { type: string; data: unknown }): Wakeup | null {
  switch (event.type) {
    case 'OccurrenceAdmitted':
    case 'OccurrenceBatched': {
      const { request } = event.data as { request?: ExecutionRequest };
      // The other members' decisions name the execution without requesting it.
      if (!request) return null;
      const { executionId, tenant, missionId, triggerId, lane } = request;
      return { executionId, generation: 1, attempt: 1, tenant, missionId, triggerId, lane };
    }
    case 'ExecutionRedelivered':
    case 'RecoveryRequested': {
      const data = event.data as (ExecutionRedelivered | RecoveryRequested)['data'];
      const { executionId, generation, tenant, missionId, triggerId, lane } = data;
      return { executionId, generation, attempt: data.attempt ?? 1, tenant, missionId, triggerId, lane };
    }
    case 'SubscriptionMatched':
    case 'SubscriptionTimedOut': {
      const data = event.data as (SubscriptionMatched | SubscriptionTimedOut)['data'];
      const { executionId, generation, attempt, missionId, triggerId, lane } = data.execution;
      const subscriptionState = event.type === 'SubscriptionMatched' ? 'matched' : 'timed_out';
      return {
        executionId,
        generation,
        attempt,
        tenant: data.tenant,
        missionId,
        triggerId,
        lane,
        subscriptionId: data.subscriptionId,
        subscriptionState,
      };
    }
    default:
      return null;
  }
}

/** XADD's field-value list: every field as a string, in the spec's order. */
export const wakeupFields = (wakeup: Wakeup): string[] => [
  'executionId',
  wakeup.executionId,
  'generation',
  String(wakeup.generation),
  'attempt',
  String(wakeup.attempt),
  'tenant',
  wakeup.tenant,
  'missionId',
  wakeup.missionId,
  'triggerId',
  wakeup.triggerId,
  'lane',
  wakeup.lane,
  ...(wakeup.subscriptionId
    ? ['subscriptionId', wakeup.subscriptionId, 'subscriptionState', wakeup.subscriptionState ?? 'matched']
    : []),
];
