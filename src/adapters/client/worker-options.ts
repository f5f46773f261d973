import type { ExecutionClaim, TokenSource } from './executions-api.js';

/** `signal` is aborted when `stop()` is called: a long handler may finish early; `stop()` still waits for it. */
export type ExecutionHandler = (
  claim: ExecutionClaim,
  context: { signal: AbortSignal },
) => Promise<{ receipt?: unknown } | void>;

export type WorkerEvent =
  | { type: 'completed'; executionId: string; outcome: 'succeeded' | 'failed' }
  | { type: 'settled'; executionId: string; decision: 'committed' | 'noncommitted'; receipt?: unknown }
  | { type: 'skipped'; executionId: string; code: string | undefined }
  | { type: 'error'; executionId?: string; error: unknown };

export interface WorkerOptions {
  baseUrl: string;
  /** A bearer token with scope `executions:write`, or a function asked before every request (for rotation). */
  token: TokenSource;
  consumerId: string;
  /** Handlers running at once (default 1). */
  concurrency?: number;
  handler: ExecutionHandler;
  /** Wakeups from the Redis Stream through a consumer group; without it the worker long-polls `claim-next`. */
  redis?: { url: string; stream?: string; group?: string };
  missionId?: string;
  triggerId?: string;
  /** Long-poll (and Redis block) time, 0–20 s (default 20); `stop()` may wait this long for a poll to return. */
  waitSeconds?: number;
  /** Aborting it is `stop()`. */
  signal?: AbortSignal;
  /** Completions, settlements, skipped claims and errors, for logs and metrics. */
  onEvent?: (event: WorkerEvent) => void;
}
