import { WrongExpectedRevision } from '../../domain/shared/errors.js';

export const MAX_CONFLICT_ATTEMPTS = 20;
/** Jitter ceiling: two racing writers rarely meet again, and a hot stream never waits long. */
const MAX_BACKOFF_MS = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RetryOptions {
  maxAttempts?: number;
  isConflict?: (error: unknown) => boolean;
}

/**
 * The one retry policy, so every writer backs off alike. Safe only where `attempt` re-reads the stream
 * and decides again from what it reads, so a retry never repeats a stale decision.
 */
export async function retryOnConflict<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const maxAttempts = options.maxAttempts ?? MAX_CONFLICT_ATTEMPTS;
  const isConflict = options.isConflict ?? ((error: unknown) => error instanceof WrongExpectedRevision);
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      if (!isConflict(error) || attemptNumber >= maxAttempts) throw error;
      await sleep(Math.random() * Math.min(2 ** attemptNumber, MAX_BACKOFF_MS));
    }
  }
}
