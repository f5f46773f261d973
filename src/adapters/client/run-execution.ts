import { randomUUID } from 'node:crypto';
import { failureOf } from './errors.js';
import { ApiError, type Completion, type ExecutionClaim, type ExecutionsApi } from './executions-api.js';
import type { ExecutionHandler, WorkerEvent } from './worker-options.js';

/** A network failure or a 5xx: the completion may or may not have been recorded. */
const isUncertain = (error: unknown) => !(error instanceof ApiError) || error.status >= 500;

/** Runs the handler on one claim and completes it; settles (EX-3) when the completion's fate is unknown. */
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
    await api.complete(claim, completion);
    report({ type: 'completed', executionId: claim.executionId, outcome: completion.outcome });
  } catch (error) {
    if (!isUncertain(error)) {
      report({ type: 'error', executionId: claim.executionId, error });
      return;
    }
    await settle(api, claim.executionId, report);
  }
}

async function settle(api: ExecutionsApi, executionId: string, report: (event: WorkerEvent) => void) {
  try {
    const settlement = await api.settle(executionId, randomUUID());
    report({ type: 'settled', executionId, ...settlement });
  } catch (error) {
    report({ type: 'error', executionId, error });
  }
}
