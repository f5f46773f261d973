import { Injectable } from '@nestjs/common';

/**
 * Wakes `?wait=decision` requests in this process the moment their occurrence is decided, instead
 * of every waiter re-reading its stream on every append. Decisions made by another process are
 * still found by the waiters' slow polling.
 */
@Injectable()
export class DecisionNotifier {
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly listeners: Array<(occurrenceId: string) => void> = [];

  /** Hears every decision made here (a background thread passes them on to the HTTP thread). */
  onDecided(listener: (occurrenceId: string) => void): void {
    this.listeners.push(listener);
  }

  decided(occurrenceId: string): void {
    this.listeners.forEach((listener) => listener(occurrenceId));
    this.waiters.get(occurrenceId)?.forEach((wake) => wake());
    this.waiters.delete(occurrenceId);
  }

  /** Resolves when `occurrenceId` is decided here, or after `timeoutMs`. */
  wait(occurrenceId: string, timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiters.get(occurrenceId) ?? new Set();
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(occurrenceId) === set) this.waiters.delete(occurrenceId);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      set.add(done);
      this.waiters.set(occurrenceId, set);
    });
  }
}
