import type { DomainEvent } from '../shared/decider.js';

/** SU-1: what a subscription waits on: one Trigger's Occurrences, or any Occurrence a source's delivery became. */
export type SubscriptionTarget = { kind: 'trigger'; id: string } | { kind: 'source'; id: string };

/** A scalar a payload field is compared with (deep JSON equality stays out: the match is a plain `===`). */
export type FieldValue = string | number | boolean | null;

/** SU-1's deterministic match: every stated part must hold (at least one is stated). */
export interface SubscriptionMatch {
  /** Compared with the value at the delivering source's `correlationPointer` (a verified delivery only). */
  correlationKey?: string;
  /** JSON pointer into the Occurrence's input → the value it must equal. */
  fields?: Record<string, FieldValue>;
}

/** The waiting execution as the wakeup stream names it (EX-1's fields), copied at registration. */
export interface WaitingExecution {
  executionId: string;
  generation: number;
  attempt: number;
  missionId: string;
  triggerId: string;
  lane: string;
}

export interface SubscriptionRegisteredData {
  tenant: string;
  subscriptionId: string;
  target: SubscriptionTarget;
  match: SubscriptionMatch;
  deadline: string;
  /** The fence of the claim that registered it (EX-2). */
  fence: number;
  execution: WaitingExecution;
  registeredAt: string;
}

/** SU-1: appended on the target's `waitfor-…` stream, so a match and a deadline of one subscription serialize there. */
export type SubscriptionRegistered = DomainEvent<'SubscriptionRegistered', SubscriptionRegisteredData>;

/** The first matching accepted event, decided in acceptance order; its Occurrence is `subscribed` in the same append. */
export type SubscriptionMatched = DomainEvent<
  'SubscriptionMatched',
  {
    tenant: string;
    subscriptionId: string;
    execution: WaitingExecution;
    occurrenceId: string;
    occurrenceTriggerId: string;
    matchedAt: string;
  }
>;

/** The deadline passed first (database clock). */
export type SubscriptionTimedOut = DomainEvent<
  'SubscriptionTimedOut',
  { tenant: string; subscriptionId: string; execution: WaitingExecution; deadline: string; timedOutAt: string }
>;

export type SubscriptionEvent = SubscriptionRegistered | SubscriptionMatched | SubscriptionTimedOut;

export const SUBSCRIPTION_EVENT_TYPES = [
  'SubscriptionRegistered',
  'SubscriptionMatched',
  'SubscriptionTimedOut',
] as const;

export type SubscriptionStateName = 'active' | 'matched' | 'timed_out';

/** One subscription's key within its tenant: ids are chosen by the execution, so they are scoped by it. */
export const subscriptionKey = (executionId: string, subscriptionId: string): string =>
  `${executionId}\u0000${subscriptionId}`;
