import type { Clock } from '../../src/domain/ports/clock.js';

/** A database-like clock a test moves by hand (never the host clock): SC-6 without waiting. */
export class ManualClock implements Clock {
  private current: Date;

  constructor(iso: string) {
    this.current = new Date(iso);
  }

  set(iso: string): this {
    this.current = new Date(iso);
    return this;
  }

  async now(): Promise<Date> {
    return new Date(this.current.getTime());
  }
}
