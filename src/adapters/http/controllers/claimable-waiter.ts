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
 * Wakes on any append this process sees (its own, and the background thread's forwarded ones). Appends by other
 * processes are not seen, and the read model trails the append, so callers also re-read on a short timeout.
 */
export class AppendSignalWaiter implements ClaimableWaiter {
  constructor(private readonly signal: AppendSignal) {}

  wait(_tenant: string, timeoutMs: number): Promise<void> {
    return this.signal.wait(timeoutMs);
  }
}

export const claimableWaiterProvider = {
  provide: CLAIMABLE_WAITER,
  useFactory: (signal: AppendSignal): ClaimableWaiter => new AppendSignalWaiter(signal),
  inject: [AppendSignal],
};
