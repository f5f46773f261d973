import type { Wakeup } from '../execution/wakeup.js';

/**
 * In-process wakeups for `claim-next` long polls. A hint only: a waiter re-reads its read model when woken and
 * at its timeout, because admissions decided by another process notify nobody here.
 */
export interface ExecutionWakeups {
  /** `position` is the log position of the event that made the execution claimable. */
  notify(wakeup: Wakeup, position: number): void;
  /** The log position of the latest wakeup of this tenant seen here (0: none); pass it to `wait` as `since`. */
  seen(tenant: string): number;
  /**
   * Resolves true when a wakeup of the tenant arrives (at once if one arrived after `since`), false at the
   * timeout or when `signal` aborts. Read `seen` before looking for work, so a wakeup in between is not missed.
   */
  wait(tenant: string, timeoutMs: number, options?: { since?: number; signal?: AbortSignal }): Promise<boolean>;
}
