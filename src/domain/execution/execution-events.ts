import type { DomainEvent } from '../shared/decider.js';
import type { ExpectedCorrelation } from '../causality/correlation-events.js';
import type { CausalLink } from '../occurrence/occurrence-events.js';

export const EXECUTION_OUTCOMES = ['succeeded', 'failed'] as const;
export type ExecutionOutcome = (typeof EXECUTION_OUTCOMES)[number];

/** What a failed attempt reported (bounded by the command side); never the payload. */
export interface ExecutionError {
  code: string;
  message: string;
}

/** Who the execution belongs to, on every lifecycle event so read models need no lookup. */
export interface Owner {
  tenant: string;
  missionId: string;
  triggerId: string;
}

interface Lifecycle extends Owner {
  executionId: string;
  generation: number;
  /** The delivery this event belongs to (1-based, across generations); absent on events recorded before retries. */
  attempt?: number;
  at: string;
}

export type ExecutionClaimed = DomainEvent<'ExecutionClaimed', Lifecycle & { fence: number; consumerId: string }>;

export type ExecutionCompleted = DomainEvent<
  'ExecutionCompleted',
  Lifecycle & {
    fence: number;
    outcome: ExecutionOutcome;
    /** EX-4: a failed attempt the consumer wants retried (absent: recorded before retries, so not retryable). */
    retryable?: boolean;
    error?: ExecutionError | null;
    receipt: unknown;
  }
>;

/** Appended with a failed retryable completion while attempts remain: the next delivery waits `nextAttemptAt`. */
export type ExecutionRetryScheduled = DomainEvent<'ExecutionRetryScheduled', Lifecycle & { nextAttemptAt: string }>;

/**
 * The execution is claimable again (EX-4): after a retry's backoff (`retry`, a new generation) or because
 * the last delivery was not claimed within `claimWithinSeconds` (`unclaimed`, the same generation). Every
 * one sends a wakeup, so it carries the lane.
 */
export type ExecutionRedelivered = DomainEvent<
  'ExecutionRedelivered',
  Lifecycle & { why: 'retry' | 'unclaimed'; lane: string; claimBy: string }
>;

export type DeadLetterReason = 'unclaimed' | 'failed';

/** EX-4: the delivery budget is spent; only an operator's recovery delivers it again. */
export type ExecutionDeadLettered = DomainEvent<
  'ExecutionDeadLettered',
  Lifecycle & { reason: DeadLetterReason; attempts: number; lastError: ExecutionError | null }
>;

/** Only the noncommit tombstone is recorded: a settlement of a completed execution changes nothing. */
export type ExecutionSettled = DomainEvent<
  'ExecutionSettled',
  Lifecycle & { settlementId: string; decision: 'noncommitted'; fence: number | null }
>;

/** EX-4 audited recovery: who asked, why, under which key, and from what state it re-delivered. */
export type RecoveryRequested = DomainEvent<
  'RecoveryRequested',
  Lifecycle & {
    from: 'dead_lettered' | 'failed' | 'noncommitted';
    actor: string;
    reason: string;
    idempotencyKey: string;
    lane: string;
    claimBy: string;
    /** The request's Mission limit, so the claimable read model can queue it again without a lookup (AD-2). */
    maxConcurrent: number;
  }
>;

/**
 * CA-2: the claim holder is about to act and names the correlation a verified delivery caused by that action will
 * carry. `child` is the causal link such a delivery gets (the Operation as parent, the execution's Occurrence and
 * this Operation appended to that Occurrence's ancestry, its depth + 1), fixed now so linking never reads more.
 */
export type OperationRecorded = DomainEvent<
  'OperationRecorded',
  Lifecycle & {
    fence: number;
    operationId: string;
    correlation: ExpectedCorrelation;
    occurrenceId: string;
    child: CausalLink;
  }
>;

export type ExecutionEvent =
  | ExecutionClaimed
  | ExecutionCompleted
  | ExecutionRetryScheduled
  | ExecutionRedelivered
  | ExecutionDeadLettered
  | ExecutionSettled
  | RecoveryRequested
  | OperationRecorded;

/** The events that move an execution's lifecycle: what the execution read models fold (an Operation moves none). */
export type LifecycleEvent = Exclude<ExecutionEvent, OperationRecorded>;

export const LIFECYCLE_EVENT_TYPES: ReadonlyArray<LifecycleEvent['type']> = [
  'ExecutionClaimed',
  'ExecutionCompleted',
  'ExecutionRetryScheduled',
  'ExecutionRedelivered',
  'ExecutionDeadLettered',
  'ExecutionSettled',
  'RecoveryRequested',
];

/** Every event of an execution stream: what `audit verify` replays through the execution's fold. */
export const EXECUTION_EVENT_TYPES: ReadonlyArray<ExecutionEvent['type']> = [
  'ExecutionClaimed',
  'ExecutionCompleted',
  'ExecutionRetryScheduled',
  'ExecutionRedelivered',
  'ExecutionDeadLettered',
  'ExecutionSettled',
  'RecoveryRequested',
  'OperationRecorded',
];
