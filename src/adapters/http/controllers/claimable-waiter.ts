import { EXECUTION_WAKEUPS } from '../../../commands/shared/tokens.js';
import type { ExecutionWakeups } from '../../../domain/ports/execution-wakeups.js';
import { AppendSignal } from '../../../projections/runner/append-signal.js';

/**
 * What a long-polling `claim-next` waits on between two reads of pending work: resolves when work may have
 * become claimable for `tenant`, or after `timeoutMs`. A wakeup notifier (e.g. one fed by the wakeup
 * dispatcher) can replace the default by providing CLAIMABLE_WAITER.
 */
export interface ClaimableWaiter {
  wait(tenant: string, timeoutMs: number): Promise<void>;
}

export const CLAIMABLE_WAITER = Symbol('CLAIMABLE_WAITER');

/**
 * Wakes on any append this process sees (its own, and the background thread's forwarded ones), and on the
 * tenant's wakeups (EX-1, EX-4: admissions, redeliveries and recoveries, including those the timers of a
 * background thread append, which reach this thread as wakeups only). Appends by other processes are not
 * seen, and the read model trails the append, so callers also re-read on a short timeout.
 */
export class AppendSignalWaiter implements ClaimableWaiter {
  constructor(
    private readonly signal: AppendSignal,
    private readonly wakeups?: ExecutionWakeups,
  ) {}

  async wait(tenant: string, timeoutMs: number): Promise<void> {
    if (!this.wakeups) return this.signal.wait(timeoutMs);
    const done = new AbortController();
    const since = this.wakeups.seen(tenant);
    await Promise.race([
      this.signal.wait(timeoutMs),
      this.wakeups.wait(tenant, timeoutMs, { since, signal: done.signal }),
    ]);
    done.abort();
  }
}

export const claimableWaiterProvider = {
  provide: CLAIMABLE_WAITER,
  useFactory: (signal: AppendSignal, wakeups: ExecutionWakeups): ClaimableWaiter =>
    new AppendSignalWaiter(signal, wakeups),
  inject: [AppendSignal, EXECUTION_WAKEUPS],
};
