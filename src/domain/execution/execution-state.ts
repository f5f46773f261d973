import type { ExpectedCorrelation } from '../causality/correlation-events.js';
import type { ExecutionRequest } from '../occurrence/occurrence-events.js';
import { DEFAULT_DELIVERY_POLICY, type DeliveryPolicy, secondsAfter } from './delivery-policy.js';
import type { DeadLetterReason, ExecutionError, ExecutionOutcome } from './execution-events.js';

/** What a completion reported, kept so a settlement losing the race to it can return it (EX-3). */
export interface CompletionReceipt {
  fence: number;
  outcome: ExecutionOutcome;
  receipt: unknown;
  completedAt: string;
}

export interface Known {
  request: ExecutionRequest;
  policy: DeliveryPolicy;
  generation: number;
  /** The current (or last) delivery, 1-based, counted across generations. */
  attempt: number;
  /** The first attempt of the current delivery budget: 1, or the attempt an operator's recovery started. */
  budgetFrom: number;
  /** The last fence handed out (0: never claimed); fences only grow, so a stale holder is always older. */
  fence: number;
  /** AD-2: counts against the Mission's maxConcurrent (claimed, or a slot taken at admission). */
  holdsSlot: boolean;
  /** A claim happened in this generation: its side effect may have run, so a recovery starts a new one. */
  attemptRan: boolean;
  lastCompletion: CompletionReceipt | null;
  lastError: ExecutionError | null;
  /** CA-2: the Operations recorded so far, by id, with their expected correlation (absent: none). */
  operations?: Readonly<Record<string, ExpectedCorrelation>>;
}

/**
 * EX-2..EX-4. A claim holds until completion or settlement: no timer ever takes it back. Timers only move
 * `pending` (not claimed in time) and `retrying` (backoff over) executions.
 */
export type ExecutionState =
  | { status: 'absent' }
  | ({ status: 'pending'; deliveredAt: string; claimBy: string } & Known)
  | ({ status: 'claimed'; consumerId: string; claimedAt: string } & Known)
  | ({ status: 'retrying'; nextAttemptAt: string } & Known)
  | ({ status: 'completed'; completion: CompletionReceipt } & Known)
  | ({ status: 'noncommitted'; settlementId: string; settledAt: string } & Known)
  | ({ status: 'dead_lettered'; reason: DeadLetterReason; attempts: number; deadLetteredAt: string } & Known);

export type KnownExecution = Exclude<ExecutionState, { status: 'absent' }>;

/** api.md's execution `status`: a final failed completion is `failed`, a successful one `completed`. */
export type ExecutionStatus =
  'pending' | 'claimed' | 'retrying' | 'completed' | 'failed' | 'noncommitted' | 'dead_lettered';

export function executionStatusOf(state: KnownExecution): ExecutionStatus {
  if (state.status === 'completed') return state.completion.outcome === 'failed' ? 'failed' : 'completed';
  return state.status;
}

/** Terminal until an operator recovers it: a terminal transition ends the overlap marker (BA-3). */
export const isTerminal = (state: KnownExecution): boolean =>
  state.status === 'completed' || state.status === 'noncommitted' || state.status === 'dead_lettered';

export const initialExecutionState: ExecutionState = { status: 'absent' };

/** Delivered by its admission at `admittedAt` (the decision's time, so the claim window starts there). */
export function requestedExecution(request: ExecutionRequest, admittedAt: string = request.firedAt): KnownExecution {
  const policy = request.delivery ?? DEFAULT_DELIVERY_POLICY;
  return {
    status: 'pending',
    request,
    policy,
    generation: 1,
    attempt: 1,
    budgetFrom: 1,
    fence: 0,
    // Requests recorded before claims took slots (no `slotTakenAt`) took theirs at admission.
    holdsSlot: request.slotTakenAt !== 'claim',
    attemptRan: false,
    lastCompletion: null,
    lastError: null,
    deliveredAt: admittedAt,
    claimBy: secondsAfter(admittedAt, policy.claimWithinSeconds),
  };
}

/** The deliveries made since the budget started (recovery starts a new budget). */
export const attemptsUsed = (state: Known): number => state.attempt - state.budgetFrom + 1;

/** An execution past its `maxRuntimeSeconds` since its claim (EX-5): shown as overdue, never taken back. */
export function isOverdue(state: KnownExecution, now: string): boolean {
  const max = state.policy.maxRuntimeSeconds;
  if (state.status !== 'claimed' || max === null) return false;
  return Date.parse(now) > Date.parse(state.claimedAt) + max * 1000;
}
