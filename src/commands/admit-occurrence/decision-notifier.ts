import { Injectable } from '@nestjs/common';

/** Spares `?wait=decision` waiters re-reading on every append; another process's decisions are found by polling. */
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
