/** At most `capacity` handlers at once; `whenFree` and `whenIdle` let the readers and `stop()` wait. */
export class Slots {
  private running = 0;
  private waiters: Array<() => void> = [];

  constructor(readonly capacity: number) {}

  get free(): number {
    return this.capacity - this.running;
  }

  /** Runs `work` in a slot the caller already saw free; the returned promise settles with it. */
  run(work: () => Promise<void>): Promise<void> {
    this.running += 1;
    return work().finally(() => {
      this.running -= 1;
      this.wake();
    });
  }

  async whenFree(): Promise<void> {
    while (this.free <= 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  async whenIdle(): Promise<void> {
    while (this.running > 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
