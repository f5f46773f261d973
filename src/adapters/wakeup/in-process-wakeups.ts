import { Injectable } from '@nestjs/common';
import type { Wakeup } from '../../domain/execution/wakeup.js';
import type { ExecutionWakeups } from '../../domain/ports/execution-wakeups.js';

/** Wakes `claim-next` long polls of this process at once instead of at their next poll. */
@Injectable()
export class InProcessWakeups implements ExecutionWakeups {
  private readonly latest = new Map<string, number>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly listeners: Array<(wakeup: Wakeup, position: number) => void> = [];

  /** Hears every wakeup notified here (a background thread passes them on to the HTTP thread). */
  onNotified(listener: (wakeup: Wakeup, position: number) => void): void {
    this.listeners.push(listener);
  }

  notify(wakeup: Wakeup, position: number): void {
    this.latest.set(wakeup.tenant, Math.max(position, this.seen(wakeup.tenant)));
    this.listeners.forEach((listener) => listener(wakeup, position));
    const waiting = this.waiters.get(wakeup.tenant);
    this.waiters.delete(wakeup.tenant);
    waiting?.forEach((wake) => wake());
  }

  seen(tenant: string): number {
    return this.latest.get(tenant) ?? 0;
  }

  wait(tenant: string, timeoutMs: number, options: { since?: number; signal?: AbortSignal } = {}): Promise<boolean> {
    const { since, signal } = options;
    if (since !== undefined && this.seen(tenant) > since) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const finish = (woken: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        const set = this.waiters.get(tenant);
        set?.delete(wake);
        if (set?.size === 0) this.waiters.delete(tenant);
        resolve(woken);
      };
      const wake = () => finish(true);
      const aborted = () => finish(false);
      const timer = setTimeout(() => finish(false), timeoutMs);
      signal?.addEventListener('abort', aborted, { once: true });
      const set = this.waiters.get(tenant) ?? new Set<() => void>();
      set.add(wake);
      this.waiters.set(tenant, set);
    });
  }

  /** Waiters of all tenants, for tests and shutdown checks. */
  get waiting(): number {
    return [...this.waiters.values()].reduce((sum, set) => sum + set.size, 0);
  }
}
