import type { ReasonCode } from '../admission/reasons.js';
import type { MissionRefusal } from '../admission/standing.js';
import type { Decider } from '../shared/decider.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { IllegalStateError } from '../shared/errors.js';
import { reject, type Rejection } from '../shared/result.js';
import type { CausalLink, ExecutionRequest } from '../occurrence/occurrence-events.js';
import { operationChildLink } from '../causality/causal-link.js';
import type { ExpectedCorrelation } from '../causality/correlation-events.js';
import { backoffSeconds, secondsAfter } from './delivery-policy.js';
import type { ExecutionError, ExecutionEvent, ExecutionOutcome, Owner } from './execution-events.js';
import {
  attemptsUsed,
  type CompletionReceipt,
  type ExecutionState,
  type KnownExecution,
  requestedExecution,
} from './execution-state.js';
import { evolveExecution } from './evolve-execution.js';

export type ExecutionCommand =
  | {
      type: 'ClaimExecution';
      executionId: string;
      consumerId: string;
      at: string;
      /** AD-2: why the execution's Mission refuses to run work now (paused, cancelled, revoked); absent or null: it does not. */
      refusal?: MissionRefusal | null;
      /** AD-5: the older execution its resource lane hands out first; absent or null: it is the lane's turn. */
      laneAhead?: string | null;
    }
  | {
      type: 'CompleteExecution';
      executionId: string;
      fence: number;
      outcome: ExecutionOutcome;
      retryable: boolean;
      error: ExecutionError | null;
      receipt: unknown;
      at: string;
    }
  | { type: 'SettleExecution'; executionId: string; settlementId: string; at: string }
  /** The database clock's timer (EX-4): a due retry or an unclaimed delivery moves on; otherwise nothing. */
  | { type: 'AdvanceDelivery'; executionId: string; at: string }
  | {
      type: 'RecoverExecution';
      executionId: string;
      actor: string;
      reason: string;
      idempotencyKey: string;
      /** The AD-3 reason fresh authority refuses it with now (cancelled Mission, disabled Trigger…), or null. */
      refusal: ReasonCode | null;
      at: string;
    }
  /** CA-2: the claim holder names the correlation its action's answer will carry; `origin` is its Occurrence's link. */
  | {
      type: 'RecordOperation';
      executionId: string;
      fence: number;
      operationId: string;
      correlation: ExpectedCorrelation;
      origin: CausalLink;
      at: string;
    };

export type ExecutionRejection =
  | 'not_found'
  | 'already_claimed'
  | 'execution_completed'
  | 'execution_noncommitted'
  | 'execution_dead_lettered'
  | 'not_pending'
  | 'fence_mismatch'
  | 'settlement_required'
  | 'claim_refused'
  | 'lane_busy'
  | 'recovery_refused'
  | 'not_recoverable'
  | 'operation_conflict'
  | 'operation_limit';

type Decision = ExecutionEvent[] | Rejection<ExecutionRejection>;

/** One admission per Occurrence (AD-1), so the id leads back to the request in its `OccurrenceAdmitted`. */
export const executionIdFor = (occurrenceId: string): string => `x-${occurrenceId}`;

/** The Occurrence an execution id names, null when the id is not one Reveille hands out. */
export const occurrenceIdOf = (executionId: string): string | null =>
  /^x-[0-9a-f]{64}$/.test(executionId) ? executionId.slice(2) : null;

export function decideExecution(command: ExecutionCommand, state: ExecutionState): Decision {
  if (state.status === 'absent') return reject('not_found', { detail: 'no such execution' });
  switch (command.type) {
    case 'ClaimExecution':
      return decideClaim(command, state);
    case 'CompleteExecution':
      return decideCompletion(command, state);
    case 'SettleExecution':
      return decideSettlement(command, state);
    case 'AdvanceDelivery':
      return decideAdvance(command, state);
    case 'RecoverExecution':
      return decideRecovery(command, state);
    case 'RecordOperation':
      return decideOperation(command, state);
    default: {
      const _: never = command;
      return [];
    }
  }
}

const ownerOf = (state: KnownExecution): Owner => ({
  tenant: state.request.tenant,
  missionId: state.request.missionId,
  triggerId: state.request.triggerId,
});

const lifecycleOf = (state: KnownExecution, executionId: string, at: string) => ({
  ...ownerOf(state),
  executionId,
  generation: state.generation,
  attempt: state.attempt,
  at,
});

/** Why a claim cannot be had now, for every status but `pending`. */
function unclaimable(state: Exclude<KnownExecution, { status: 'pending' }>): Rejection<ExecutionRejection> {
  switch (state.status) {
    case 'claimed':
      return reject('already_claimed', { detail: `claimed by ${state.consumerId} at ${state.claimedAt}` });
    case 'retrying':
      return reject('not_pending', { detail: `waiting for a retry's backoff until ${state.nextAttemptAt}` });
    case 'completed':
      return reject('execution_completed', {
        detail: `completed (${state.completion.outcome}) at ${state.completion.completedAt}`,
      });
    case 'noncommitted':
      return reject('execution_noncommitted', { detail: `settled as noncommitted at ${state.settledAt}` });
    case 'dead_lettered':
      return reject('execution_dead_lettered', {
        detail: `dead-lettered (${state.reason}) after ${state.attempts} attempts at ${state.deadLetteredAt}`,
      });
    default:
      return unreachable(state);
  }
}

function decideClaim(command: Extract<ExecutionCommand, { type: 'ClaimExecution' }>, state: KnownExecution): Decision {
  if (state.status !== 'pending') return unclaimable(state);
  const { executionId, consumerId, at, refusal, laneAhead } = command;
  if (refusal)
    return reject('claim_refused', { detail: `the Mission refuses to run work now: ${refusal}`, reason: refusal });
  if (laneAhead)
    return reject('lane_busy', {
      detail: `${laneAhead} is handed out first on the resource lane ${state.request.lane}`,
    });
  return [
    {
      type: 'ExecutionClaimed',
      data: { ...lifecycleOf(state, executionId, at), fence: state.fence + 1, consumerId },
    },
  ];
}

function decideCompletion(
  command: Extract<ExecutionCommand, { type: 'CompleteExecution' }>,
  state: KnownExecution,
): Decision {
  const { executionId, fence, outcome, at } = command;
  // The holder retrying its own completion changes nothing, whatever happened since; anyone else is told who won.
  const last = state.lastCompletion;
  if (state.status !== 'claimed' && last !== null && fence === last.fence) {
    if (outcome !== last.outcome)
      return reject('execution_completed', {
        detail: `the attempt with this fence already completed (${last.outcome})`,
      });
    // EX-3: settle answers the first receipt; a repeat told 200 with another one would believe it was kept.
    return canonicalJson(command.receipt ?? null) === canonicalJson(last.receipt ?? null)
      ? []
      : reject('execution_completed', {
          detail: `the attempt with this fence already completed (${last.outcome}) with another receipt`,
        });
  }
  if (state.status === 'noncommitted')
    return reject('execution_noncommitted', {
      detail: `settled as noncommitted at ${state.settledAt}; the completion is refused`,
    });
  // A dead letter holds no claim, so no fence is the current claim's (api.md lists only fence_mismatch here). The
  // latest fence it can be asked with ended in a completion (a retryable failure: answered above as the holder's
  // repeat, or who won) or in a noncommit settlement since recovered (refused like any fence after a recovery).
  // `execution_dead_lettered` stays the answer to a claim, which carries no fence to check.
  if (state.status === 'dead_lettered')
    return reject('fence_mismatch', {
      detail: `dead-lettered (${state.reason}) at ${state.deadLetteredAt}; no claim holds it`,
    });
  if (state.status === 'completed') return reject('fence_mismatch', { detail: 'the execution is already completed' });
  if (state.status !== 'claimed') return reject('fence_mismatch', { detail: 'the execution is not claimed' });
  if (fence !== state.fence) return reject('fence_mismatch', { detail: "the fence is not the current claim's" });

  const base = lifecycleOf(state, executionId, at);
  const retryable = outcome === 'failed' && command.retryable;
  const completed: ExecutionEvent = {
    type: 'ExecutionCompleted',
    data: { ...base, fence, outcome, retryable, error: command.error, receipt: command.receipt ?? null },
  };
  if (!retryable) return [completed];
  const used = attemptsUsed(state);
  if (used >= state.policy.maxAttempts)
    return [
      completed,
      {
        type: 'ExecutionDeadLettered',
        data: { ...base, reason: 'failed', attempts: used, lastError: command.error },
      },
    ];
  const nextAttemptAt = secondsAfter(at, backoffSeconds(state.policy, used));
  return [completed, { type: 'ExecutionRetryScheduled', data: { ...base, nextAttemptAt } }];
}

function decideSettlement(
  command: Extract<ExecutionCommand, { type: 'SettleExecution' }>,
  state: KnownExecution,
): Decision {
  if (state.status !== 'pending' && state.status !== 'claimed') return [];
  return [
    {
      type: 'ExecutionSettled',
      data: {
        ...lifecycleOf(state, command.executionId, command.at),
        settlementId: command.settlementId,
        decision: 'noncommitted',
        fence: state.status === 'claimed' ? state.fence : null,
      },
    },
  ];
}

/**
 * EX-4 timers. Idempotent: a timer firing twice, early or for a state that moved on appends nothing. An
 * unclaimed delivery is sent again with the backoff added to its next claim window, and dead-lettered once
 * the budget's last delivery went unclaimed.
 */
function decideAdvance(
  command: Extract<ExecutionCommand, { type: 'AdvanceDelivery' }>,
  state: KnownExecution,
): Decision {
  const { executionId, at } = command;
  const now = Date.parse(at);
  const base = lifecycleOf(state, executionId, at);
  const { lane } = state.request;
  const window = state.policy.claimWithinSeconds;
  if (state.status === 'retrying') {
    if (now < Date.parse(state.nextAttemptAt)) return [];
    return [
      {
        type: 'ExecutionRedelivered',
        data: {
          ...base,
          generation: state.generation + 1,
          attempt: state.attempt + 1,
          why: 'retry',
          lane,
          claimBy: secondsAfter(at, window),
        },
      },
    ];
  }
  if (state.status !== 'pending' || now < Date.parse(state.claimBy)) return [];
  const used = attemptsUsed(state);
  if (used >= state.policy.maxAttempts)
    return [
      {
        type: 'ExecutionDeadLettered',
        data: { ...base, reason: 'unclaimed', attempts: used, lastError: state.lastError },
      },
    ];
  return [
    {
      type: 'ExecutionRedelivered',
      data: {
        ...base,
        attempt: state.attempt + 1,
        why: 'unclaimed',
        lane,
        claimBy: secondsAfter(at, window + backoffSeconds(state.policy, used)),
      },
    },
  ];
}

/**
 * EX-4 audited recovery: never while an attempt may still be running (a claim without settlement), never
 * against fresh authority. The same generation when no attempt of it ran, a new one when the last ended.
 */
function decideRecovery(
  command: Extract<ExecutionCommand, { type: 'RecoverExecution' }>,
  state: KnownExecution,
): Decision {
  switch (state.status) {
    case 'claimed':
      return reject('settlement_required', {
        detail: `claimed by ${state.consumerId} at ${state.claimedAt}; its side effect may have happened: settle it first`,
      });
    case 'pending':
    case 'retrying':
      return reject('not_recoverable', { detail: `the execution is ${state.status}; it will be delivered anyway` });
    case 'completed':
      if (state.completion.outcome === 'succeeded')
        return reject('execution_completed', { detail: `completed (succeeded) at ${state.completion.completedAt}` });
      break;
    case 'noncommitted':
    case 'dead_lettered':
      break;
    default:
      return unreachable(state);
  }
  if (command.refusal !== null)
    return reject('recovery_refused', {
      detail: `authority refuses the execution now: ${command.refusal}`,
      reason: command.refusal,
    });
  const { executionId, actor, reason, idempotencyKey, at } = command;
  const from = state.status === 'completed' ? 'failed' : state.status;
  return [
    {
      type: 'RecoveryRequested',
      data: {
        ...lifecycleOf(state, executionId, at),
        generation: state.attemptRan ? state.generation + 1 : state.generation,
        attempt: state.attempt + 1,
        from,
        actor,
        reason,
        idempotencyKey,
        lane: state.request.lane,
        claimBy: secondsAfter(at, state.policy.claimWithinSeconds),
        maxConcurrent: state.request.limits.maxConcurrent,
      },
    },
  ];
}

/** CA-2: an execution records at most this many Operations (each is an event on its stream and a correlation key). */
export const MAX_OPERATIONS_PER_EXECUTION = 100;

/**
 * CA-2: only the current claim holder records an Operation (the fence, as for a completion). The same id with the
 * same correlation again changes nothing (a retry); with another correlation it is refused, never re-pointed.
 */
function decideOperation(
  command: Extract<ExecutionCommand, { type: 'RecordOperation' }>,
  state: KnownExecution,
): Decision {
  const { executionId, fence, operationId, correlation, origin, at } = command;
  const known = state.operations?.[operationId];
  if (known)
    return known.sourceId === correlation.sourceId && known.key === correlation.key
      ? []
      : reject('operation_conflict', { detail: `operation ${operationId} was recorded with another correlation` });
  if (state.status !== 'claimed')
    return reject('fence_mismatch', { detail: `the execution is ${state.status}, not claimed` });
  if (fence !== state.fence) return reject('fence_mismatch', { detail: "the fence is not the current claim's" });
  if (Object.keys(state.operations ?? {}).length >= MAX_OPERATIONS_PER_EXECUTION)
    return reject('operation_limit', {
      detail: `an execution records at most ${MAX_OPERATIONS_PER_EXECUTION} operations`,
    });
  const { occurrenceId, triggerId, depth, ancestry } = state.request;
  // CA-1/CA-3: an execution standing for several Occurrences (a batch, a coalesced group) carries its own causality
  // (the deepest member's depth, the union of their ancestries); any other runs at its Occurrence's, as observed.
  const causal = depth === undefined ? origin : { parentId: null, depth, ancestry: ancestry ?? [] };
  return [
    {
      type: 'OperationRecorded',
      data: {
        ...lifecycleOf(state, executionId, at),
        fence,
        operationId,
        correlation: { sourceId: correlation.sourceId, key: correlation.key },
        occurrenceId,
        child: operationChildLink({ occurrenceId, triggerId, causal }, operationId),
      },
    },
  ];
}

function unreachable(state: never): never {
  throw new IllegalStateError(`unknown execution status ${JSON.stringify(state)}`);
}

export const executionDeciderFor = (
  request: ExecutionRequest,
  admittedAt?: string,
): Decider<ExecutionState, ExecutionEvent, ExecutionCommand> => ({
  initialState: requestedExecution(request, admittedAt),
  evolve: evolveExecution,
  decide: decideExecution,
});
