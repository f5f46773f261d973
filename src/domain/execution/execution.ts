import type { Decider, DomainEvent } from '../shared/decider.js';
import { IllegalStateError } from '../shared/errors.js';
import { reject, type Rejection } from '../shared/result.js';
import type { ExecutionRequest } from '../occurrence/occurrence-events.js';

export const EXECUTION_OUTCOMES = ['succeeded', 'failed'] as const;
export type ExecutionOutcome = (typeof EXECUTION_OUTCOMES)[number];

/** What a completion reported, kept so a settlement losing the race to it can return it (EX-3). */
export interface CompletionReceipt {
  fence: number;
  outcome: ExecutionOutcome;
  receipt: unknown;
  completedAt: string;
}

interface Known {
  request: ExecutionRequest;
  generation: number;
  /** The last fence handed out (0: never claimed); fences only grow, so a stale holder is always older. */
  fence: number;
}

/** EX-2/EX-3: a claim holds until completion or settlement; no timer ever takes it back. */
export type ExecutionState =
  | { status: 'absent' }
  | ({ status: 'requested' } & Known)
  | ({ status: 'claimed'; consumerId: string; claimedAt: string } & Known)
  | ({ status: 'completed'; completion: CompletionReceipt } & Known)
  | ({ status: 'noncommitted'; settlementId: string; settledAt: string } & Known);

/** Who the execution belongs to, on every lifecycle event so read models need no lookup. */
interface Owner {
  tenant: string;
  missionId: string;
  triggerId: string;
}
export type ExecutionClaimed = DomainEvent<
  'ExecutionClaimed',
  Owner & { executionId: string; generation: number; fence: number; consumerId: string; at: string }
>;
export type ExecutionCompleted = DomainEvent<
  'ExecutionCompleted',
  Owner & {
    executionId: string;
    generation: number;
    fence: number;
    outcome: ExecutionOutcome;
    receipt: unknown;
    at: string;
  }
>;
/** Only the noncommit tombstone is recorded: a settlement of a completed execution changes nothing. */
export type ExecutionSettled = DomainEvent<
  'ExecutionSettled',
  Owner & {
    executionId: string;
    generation: number;
    settlementId: string;
    decision: 'noncommitted';
    fence: number | null;
    at: string;
  }
>;
export type ExecutionEvent = ExecutionClaimed | ExecutionCompleted | ExecutionSettled;

export type ExecutionCommand =
  | { type: 'ClaimExecution'; executionId: string; consumerId: string; at: string }
  | {
      type: 'CompleteExecution';
      executionId: string;
      fence: number;
      outcome: ExecutionOutcome;
      receipt: unknown;
      at: string;
    }
  | { type: 'SettleExecution'; executionId: string; settlementId: string; at: string };

export type ExecutionRejection =
  'not_found' | 'already_claimed' | 'execution_completed' | 'execution_noncommitted' | 'fence_mismatch';

/** One admission per Occurrence (AD-1), so the id leads back to the request in its `OccurrenceAdmitted`. */
export const executionIdFor = (occurrenceId: string): string => `x-${occurrenceId}`;

/** The Occurrence an execution id names, null when the id is not one Reveille hands out. */
export const occurrenceIdOf = (executionId: string): string | null =>
  /^x-[0-9a-f]{64}$/.test(executionId) ? executionId.slice(2) : null;

export const requestedExecution = (request: ExecutionRequest): ExecutionState => ({
  status: 'requested',
  request,
  generation: 1,
  fence: 0,
});

export const initialExecutionState: ExecutionState = { status: 'absent' };

export function evolveExecution(state: ExecutionState, event: ExecutionEvent): ExecutionState {
  switch (event.type) {
    case 'ExecutionClaimed': {
      const known = knownOf(state, event.type);
      return {
        status: 'claimed',
        request: known.request,
        generation: known.generation,
        fence: event.data.fence,
        consumerId: event.data.consumerId,
        claimedAt: event.data.at,
      };
    }
    case 'ExecutionCompleted': {
      const known = knownOf(state, event.type);
      const { fence, outcome, receipt, at } = event.data;
      return {
        status: 'completed',
        request: known.request,
        generation: known.generation,
        fence: known.fence,
        completion: { fence, outcome, receipt, completedAt: at },
      };
    }
    case 'ExecutionSettled': {
      const known = knownOf(state, event.type);
      return {
        status: 'noncommitted',
        request: known.request,
        generation: known.generation,
        fence: known.fence,
        settlementId: event.data.settlementId,
        settledAt: event.data.at,
      };
    }
    default: {
      const _: never = event;
      return state;
    }
  }
}

function knownOf(state: ExecutionState, type: string): Known {
  if (state.status === 'absent') throw new IllegalStateError(`${type} of an execution nobody requested`);
  return state;
}

export function decideExecution(
  command: ExecutionCommand,
  state: ExecutionState,
): ExecutionEvent[] | Rejection<ExecutionRejection> {
  if (state.status === 'absent') return reject('not_found', { detail: 'no such execution' });
  const { executionId, at } = command;
  const { generation } = state;
  const { tenant, missionId, triggerId } = state.request;
  const owner: Owner = { tenant, missionId, triggerId };
  switch (command.type) {
    case 'ClaimExecution':
      switch (state.status) {
        case 'requested':
          return [
            {
              type: 'ExecutionClaimed',
              data: { ...owner, executionId, generation, fence: state.fence + 1, consumerId: command.consumerId, at },
            },
          ];
        case 'claimed':
          return reject('already_claimed', { detail: `claimed by ${state.consumerId} at ${state.claimedAt}` });
        case 'completed':
          return reject('execution_completed', {
            detail: `completed (${state.completion.outcome}) at ${state.completion.completedAt}`,
          });
        case 'noncommitted':
          return reject('execution_noncommitted', { detail: `settled as noncommitted at ${state.settledAt}` });
        default:
          return unreachable(state);
      }
    case 'CompleteExecution':
      switch (state.status) {
        case 'requested':
          return reject('fence_mismatch', { detail: 'the execution is not claimed' });
        case 'claimed':
          if (command.fence !== state.fence)
            return reject('fence_mismatch', { detail: "the fence is not the current claim's" });
          return [
            {
              type: 'ExecutionCompleted',
              data: {
                ...owner,
                executionId,
                generation,
                fence: command.fence,
                outcome: command.outcome,
                receipt: command.receipt ?? null,
                at,
              },
            },
          ];
        case 'completed': {
          // The holder retrying its own completion changes nothing; anyone else is told who won.
          const same = command.fence === state.completion.fence && command.outcome === state.completion.outcome;
          return same
            ? []
            : reject(command.fence === state.completion.fence ? 'execution_completed' : 'fence_mismatch', {
                detail: 'the execution is already completed',
              });
        }
        case 'noncommitted':
          return reject('execution_noncommitted', {
            detail: `settled as noncommitted at ${state.settledAt}; the completion is refused`,
          });
        default:
          return unreachable(state);
      }
    case 'SettleExecution':
      switch (state.status) {
        case 'requested':
        case 'claimed':
          return [
            {
              type: 'ExecutionSettled',
              data: {
                ...owner,
                executionId,
                generation,
                settlementId: command.settlementId,
                decision: 'noncommitted',
                fence: state.status === 'claimed' ? state.fence : null,
                at,
              },
            },
          ];
        case 'completed':
        case 'noncommitted':
          return [];
        default:
          return unreachable(state);
      }
    default: {
      const _: never = command;
      return [];
    }
  }
}

function unreachable(state: never): never {
  throw new IllegalStateError(`unknown execution status ${JSON.stringify(state)}`);
}

/** EX-3: what a settlement answers once decided (its own tombstone, or the completion it lost to). */
export function settlementOf(
  state: ExecutionState,
): { decision: 'committed'; receipt: CompletionReceipt } | { decision: 'noncommitted' } | null {
  if (state.status === 'completed') return { decision: 'committed', receipt: state.completion };
  if (state.status === 'noncommitted') return { decision: 'noncommitted' };
  return null;
}

/** AD-2: a queued execution takes its Mission's concurrency slot with its claim (an opt-in `block` one, at admission). */
export const takesSlotOnClaim = (event: ExecutionEvent, request: ExecutionRequest): boolean =>
  event.type === 'ExecutionClaimed' && request.slotTakenAt === 'claim';

/**
 * A slot is held from the claim (or the admission that took it) until the execution is terminal; a queued
 * execution settled before anyone claimed it never held one.
 */
export function releasesSlot(event: ExecutionEvent, request: ExecutionRequest): 'completed' | 'noncommitted' | null {
  if (event.type === 'ExecutionCompleted') return 'completed';
  if (event.type !== 'ExecutionSettled') return null;
  return event.data.fence !== null || request.slotTakenAt !== 'claim' ? 'noncommitted' : null;
}

/** BA-3: every terminal event ends the Trigger's overlap marker, claimed or not; null when the Trigger allowed overlaps. */
export function endsOverlap(event: ExecutionEvent, request: ExecutionRequest): 'completed' | 'noncommitted' | null {
  if (request.overlap !== 'skip') return null;
  if (event.type === 'ExecutionCompleted') return 'completed';
  return event.type === 'ExecutionSettled' ? 'noncommitted' : null;
}

export const executionDeciderFor = (
  request: ExecutionRequest,
): Decider<ExecutionState, ExecutionEvent, ExecutionCommand> => ({
  initialState: requestedExecution(request),
  evolve: evolveExecution,
  decide: decideExecution,
});
