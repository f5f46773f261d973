import { deciderSpec } from '../shared/given-when-then.js';
import type { ExecutionRequest } from '../occurrence/occurrence-events.js';
import {
  executionDeciderFor,
  type ExecutionEvent,
  evolveExecution,
  initialExecutionState,
  requestedExecution,
} from './index.js';

/** One execution request and its commands and events, shared by the execution decider's specs. */
export const AT = '2026-03-01T10:00:00.000Z';
export const LATER = (seconds: number) => new Date(Date.parse(AT) + seconds * 1000).toISOString();
export const request: ExecutionRequest = {
  executionId: 'e-1',
  tenant: 'acme',
  missionId: 'm-1',
  triggerId: 't-1',
  triggerRevision: 2,
  occurrenceId: 'o-1',
  input: { n: 1 },
  resourceRefs: [],
  lane: 'trigger:t-1',
  scheduledAt: null,
  firedAt: AT,
  limits: { maxConcurrent: 1, maxExecutionsPerHour: 10 },
  slotTakenAt: 'claim',
  delivery: {
    maxAttempts: 3,
    backoff: { initialSeconds: 2, multiplier: 3, maxSeconds: 5 },
    claimWithinSeconds: 10,
    maxRuntimeSeconds: 30,
    budgetUnits: null,
  },
};
export const spec = deciderSpec(executionDeciderFor(request, AT));
export const unknown = deciderSpec({ ...executionDeciderFor(request), initialState: initialExecutionState });
export const fold = (events: ExecutionEvent[]) => events.reduce(evolveExecution, requestedExecution(request, AT));
export const owner = { tenant: 'acme', missionId: 'm-1', triggerId: 't-1' };
export const life = (generation = 1, attempt = 1, at = AT) => ({
  ...owner,
  executionId: 'e-1',
  generation,
  attempt,
  at,
});
export const claimed = (consumerId = 'c-1', fence = 1, generation = 1, attempt = 1, at = AT): ExecutionEvent => ({
  type: 'ExecutionClaimed',
  data: { ...life(generation, attempt, at), fence, consumerId },
});
export const completed = (outcome: 'succeeded' | 'failed' = 'succeeded', fence = 1): ExecutionEvent => ({
  type: 'ExecutionCompleted',
  data: { ...life(), fence, outcome, retryable: false, error: null, receipt: { ref: 'r-1' } },
});
export const settled = (fence: number | null = 1): ExecutionEvent => ({
  type: 'ExecutionSettled',
  data: { ...life(), settlementId: 's-1', decision: 'noncommitted', fence },
});
export const claim = (consumerId = 'c-1') => ({
  type: 'ClaimExecution' as const,
  executionId: 'e-1',
  consumerId,
  at: AT,
});
export const complete = (fence: number, outcome: 'succeeded' | 'failed' = 'succeeded') => ({
  type: 'CompleteExecution' as const,
  executionId: 'e-1',
  fence,
  outcome,
  retryable: false,
  error: null,
  receipt: { ref: 'r-1' },
  at: AT,
});
export const settle = (settlementId = 's-1') => ({
  type: 'SettleExecution' as const,
  executionId: 'e-1',
  settlementId,
  at: AT,
});

export const ERROR = { code: 'upstream_down', message: 'the API answered 503' };
export const failRetryable = (fence: number, at = AT) => ({
  type: 'CompleteExecution' as const,
  executionId: 'e-1',
  fence,
  outcome: 'failed' as const,
  retryable: true,
  error: ERROR,
  receipt: null,
  at,
});
export const advance = (at: string) => ({ type: 'AdvanceDelivery' as const, executionId: 'e-1', at });
export const recover = (refusal: 'mission_cancelled' | null = null) => ({
  type: 'RecoverExecution' as const,
  executionId: 'e-1',
  actor: 'ops@acme',
  reason: 'upstream fixed',
  idempotencyKey: 'k-1',
  refusal,
  at: LATER(100),
});
/** Runs the decider forward: each command's events are folded into the history for the next. */
export function play(commands: Array<Parameters<ReturnType<typeof spec.given>['when']>[0]>): ExecutionEvent[] {
  const events: ExecutionEvent[] = [];
  for (const command of commands) {
    const result = spec.given(events).when(command).result();
    if (!Array.isArray(result)) throw new Error(`rejected: ${result.code}`);
    events.push(...result);
  }
  return events;
}
