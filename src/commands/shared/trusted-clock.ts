import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE } from './tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';

const RESYNC_MS = 5_000;

/**
 * The database's clock without a round trip per request (SC-6, decision 5, docs/architecture.md): sampled
 * and extrapolated with the monotonic clock, so a host wall-clock jump changes nothing.
 */
@Injectable()
export class TrustedClock {
  private base: { dbMs: number; monoMs: number } | null = null;
  private syncing: Promise<void> | null = null;

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async now(): Promise<Date> {
    const mono = performance.now();
    if (!this.base || mono - this.base.monoMs > RESYNC_MS) await this.sync();
    return new Date(this.base!.dbMs + (performance.now() - this.base!.monoMs));
  }

  /**
   * The database read its clock at some moment of the round trip: counted from when it was asked, the estimate is
   * never behind the database (at most a round trip ahead). Counted from the answer, it lagged: an instant another
   * process materialized by the database's own clock looked not yet due here, and admission refused its whole page
   * (SC-4) until the next resync.
   */
  private sync(): Promise<void> {
    const asked = performance.now();
    this.syncing ??= this.store
      .now()
      .then((db) => {
        this.base = { dbMs: db.getTime(), monoMs: asked };
      })
      .finally(() => {
        this.syncing = null;
      });
    return this.syncing;
  }
}
