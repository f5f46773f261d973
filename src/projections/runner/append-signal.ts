interface Waiter {
  wake: () => void;
  /** Wakes only for appends of these event types (or of unknown types); undefined: for every append. */
  types?: ReadonlySet<string>;
}

/**
 * Wakes this process's subscribers at once so they need not poll hot; other processes' appends wait for idle polls.
 * An append names its event types, so a subscriber waits only for the types it reads: a delivery's claim and
 * completion no longer wake the subscriptions that read Occurrences, Sources or schedules (each woke to read a page
 * of nothing for it and to write its checkpoint past it). Those still catch up on their idle poll.
 */
export class AppendSignal {
  private waiters: Waiter[] = [];
  private readonly listeners: Array<(types: readonly string[] | undefined, position?: number) => void> = [];
  /** Notifications so far; per type (null: unknown types) the number of the latest one. */
  private count = 0;
  private readonly latest = new Map<string | null, number>();

  /** `types` undefined: unknown, every waiter wakes. `position`: the append's last event, when the store knows it. */
  notify(types?: readonly string[], position?: number): void {
    this.listeners.forEach((listener) => listener(types, position));
    this.wake(types);
  }

  /** Wakes the waiters for `types` again without announcing an append (listeners hear nothing). */
  wake(types?: readonly string[]): void {
    this.count++;
    for (const type of types ?? [null]) this.latest.set(type, this.count);
    const woken: Waiter[] = [];
    const waiting: Waiter[] = [];
    for (const waiter of this.waiters) (concerns(waiter, types) ? woken : waiting).push(waiter);
    this.waiters = waiting;
    woken.forEach((waiter) => waiter.wake());
  }

  /** Every notification as it happens (the background thread forwards them, types included). */
  onNotify(listener: (types: readonly string[] | undefined, position?: number) => void): void {
    this.listeners.push(listener);
  }

  /** How many notifications there have been: noted before a read, so that a wait after it misses none (`since`). */
  get notified(): number {
    return this.count;
  }

  /**
   * Resolves at the next notification for `types`, or after `timeoutMs`. With `since` (a `notified` count), at once
   * if one for `types` came after it: a notification while the subscriber was reading would otherwise be lost, and
   * with it up to a whole idle poll (a closed loop of waiting clients then stalls for all of it).
   */
  wait(timeoutMs: number, types?: ReadonlySet<string>, since?: number): Promise<void> {
    if (since !== undefined && this.notifiedSince(since, types)) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter: Waiter = {
        wake: () => {
          clearTimeout(timer);
          // A waiter for types never appended would otherwise stay listed after its timeout.
          this.waiters = this.waiters.filter((other) => other !== waiter);
          resolve();
        },
        ...(types ? { types } : {}),
      };
      const timer = setTimeout(waiter.wake, timeoutMs);
      timer.unref?.();
      this.waiters.push(waiter);
    });
  }

  private notifiedSince(since: number, types?: ReadonlySet<string>): boolean {
    if (this.count <= since) return false;
    if (!types) return true;
    return [null, ...types].some((type) => (this.latest.get(type) ?? 0) > since);
  }
}

function concerns(waiter: Waiter, types: readonly string[] | undefined): boolean {
  return !waiter.types || !types || types.some((type) => waiter.types!.has(type));
}
