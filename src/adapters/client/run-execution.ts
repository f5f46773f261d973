import { randomUUID } from 'node:crypto';
import { failureOf } from './errors.js';
import { type Completion, type ExecutionClaim, type ExecutionsApi, isUncertain } from './executions-api.js';
import type { ExecutionHandler, WorkerEvent } from './worker-options.js';

/**
 * The worker knows how its handler ended, so a completion whose answer was lost is sent again (the same key replays a
 * recorded one) through a restart of the service: settling at once installed a noncommit tombstone over handlers that
 * had succeeded, and their recovery ran the side effect twice; giving up left the execution claimed for good.
 */
export const COMPLETE_RESEND_MS = 10 * 60_000;
/** After that, a settlement (EX-3) decides it, sent again just as long. A worker being stopped tries each ≈ 15 s. */
export const SETTLE_RESEND_MS = 10 * 60_000;

/**
 * Runs the handler on one claim and completes it; settles (EX-3) only when the completion stays unanswered for
 * COMPLETE_RESEND_MS.
 */
export async function runExecution(
  api: ExecutionsApi,
  claim: ExecutionClaim,
  handler: ExecutionHandler,
  signal: AbortSignal,
  report: (event: WorkerEvent) => void,
): Promise<void> {
  let completion: Completion;
  try {
    const result = await handler(claim, { signal });
    completion = { outcome: 'succeeded', ...(result?.receipt === undefined ? {} : { receipt: result.receipt }) };
  } catch (error) {
    completion = { outcome: 'failed', ...failureOf(error) };
  }
  try {
    await api.complete(claim, completion, COMPLETE_RESEND_MS, signal);
    report({ type: 'completed', executionId: claim.executionId, outcome: completion.outcome });
  } catch (error) {
    if (!isUncertain(error)) {
      report({ type: 'error', executionId: claim.executionId, error });
      return;
    }
    await settle(api, claim.executionId, report, signal);
  }
}

async function settle(
  api: ExecutionsApi,
  executionId: string,
  report: (event: WorkerEvent) => void,
  stopping: AbortSignal,
) {
  try {
    const settlement = await api.settle(executionId, randomUUID(), SETTLE_RESEND_MS, stopping);
    report({ type: 'settled', executionId, ...settlement });
  } catch (error) {
    report({ type: 'error', executionId, error });
  }
}
