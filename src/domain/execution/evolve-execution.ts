import { IllegalStateError } from '../shared/errors.js';
import type { ExecutionEvent } from './execution-events.js';
import type { ExecutionState, Known, KnownExecution } from './execution-state.js';

/** The facts every state carries, whatever status the previous one had. */
function knownOf(state: ExecutionState, type: string): Known {
  if (state.status === 'absent') throw new IllegalStateError(`${type} of an execution nobody requested`);
  const {
    request,
    policy,
    generation,
    attempt,
    budgetFrom,
    fence,
    holdsSlot,
    attemptRan,
    lastCompletion,
    lastError,
    operations,
  } = state;
  return {
    request,
    policy,
    generation,
    attempt,
    budgetFrom,
    fence,
    holdsSlot,
    attemptRan,
    lastCompletion,
    lastError,
    ...(operations ? { operations } : {}),
  };
}

export function evolveExecution(state: ExecutionState, event: ExecutionEvent): KnownExecution {
  const known = knownOf(state, event.type);
  switch (event.type) {
    case 'ExecutionClaimed': {
      const { fence, consumerId, at, attempt } = event.data;
      return {
        ...known,
        status: 'claimed',
        fence,
        attempt: attempt ?? known.attempt,
        holdsSlot: true,
        attemptRan: true,
        consumerId,
        claimedAt: at,
      };
    }
    case 'ExecutionCompleted': {
      const { fence, outcome, receipt, at, error } = event.data;
      const completion = { fence, outcome, receipt, completedAt: at };
      return {
        ...known,
        status: 'completed',
        holdsSlot: false,
        lastCompletion: completion,
        lastError: error ?? (outcome === 'failed' ? known.lastError : null),
        completion,
      };
    }
    case 'ExecutionRetryScheduled':
      return { ...known, status: 'retrying', holdsSlot: false, nextAttemptAt: event.data.nextAttemptAt };
    case 'ExecutionRedelivered':
    case 'RecoveryRequested': {
      const { generation, attempt, at, claimBy } = event.data;
      const newGeneration = generation !== known.generation;
      return {
        ...known,
        status: 'pending',
        generation,
        attempt: attempt ?? known.attempt + 1,
        budgetFrom: event.type === 'RecoveryRequested' ? (attempt ?? known.attempt + 1) : known.budgetFrom,
        attemptRan: newGeneration ? false : known.attemptRan,
        deliveredAt: at,
        claimBy,
      };
    }
    case 'ExecutionDeadLettered': {
      const { reason, attempts, lastError, at } = event.data;
      return {
        ...known,
        status: 'dead_lettered',
        holdsSlot: false,
        lastError: lastError ?? known.lastError,
        reason,
        attempts,
        deadLetteredAt: at,
      };
    }
    case 'ExecutionSettled':
      return {
        ...known,
        status: 'noncommitted',
        holdsSlot: false,
        settlementId: event.data.settlementId,
        settledAt: event.data.at,
      };
    case 'OperationRecorded': {
      // CA-2: an Operation changes no lifecycle state; it is remembered so a repeat is recognised.
      const { operationId, correlation } = event.data;
      return { ...(state as KnownExecution), operations: { ...known.operations, [operationId]: correlation } };
    }
    default: {
      const _: never = event;
      throw new IllegalStateError(`unknown execution event ${JSON.stringify(_)}`);
    }
  }
}
