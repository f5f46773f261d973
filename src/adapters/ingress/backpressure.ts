import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { ReveilleConfig } from '../config/config.js';
import { CONFIG } from '../config/config.token.js';
import { SQL_CLIENT, type SqlClient } from '../eventstore/sql/sql-client.js';

const REFRESH_MS = 500;
/** A process that has not served ingress for this long stops counting (a background-only process never starts). */
const IDLE_MS = 10_000;

export type BacklogReason = 'outstanding_source' | 'outstanding_global';

/**
 * WH-8: outstanding unadmitted occurrences, per source and overall. The hot path reads an in-memory
 * snapshot refreshed from the occurrences read model, so shedding load costs no query. Only a
 * process that serves ingress pays for the snapshot: refreshing starts with the first delivery and
 * pauses after IDLE_MS without one.
 */
@Injectable()
export class Backpressure implements OnApplicationShutdown {
  private perSource = new Map<string, number>();
  private total = 0;
  private timer: NodeJS.Timeout | null = null;
  private servedAt = 0;
  private refreshing: Promise<void> | null = null;
  readonly limits: { perSource: number; global: number };

  constructor(@Inject(SQL_CLIENT) private readonly sql: SqlClient, @Inject(CONFIG) config: ReveilleConfig) {
    this.limits = config.maxOutstanding;
  }

  /** null when there is room; otherwise the reason for a 429. */
  check(tenant: string, sourceId: string): BacklogReason | null {
    this.servedAt = Date.now();
    if (!this.timer) this.startRefreshing();
    if (this.total >= this.limits.global) return 'outstanding_global';
    if ((this.perSource.get(`${tenant}\u0000${sourceId}`) ?? 0) >= this.limits.perSource) return 'outstanding_source';
    return null;
  }

  /** Counts this process's own accepts until the next refresh sees them in the read model. */
  accepted(tenant: string, sourceId: string): void {
    const key = `${tenant}\u0000${sourceId}`;
    this.perSource.set(key, (this.perSource.get(key) ?? 0) + 1);
    this.total += 1;
  }

  /** Reads the undecided Occurrences per source now; concurrent callers share one query. */
  refresh(): Promise<void> {
    this.refreshing ??= this.count().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  onApplicationShutdown(): void {
    this.stopRefreshing();
  }

  private async count(): Promise<void> {
    const { rows } = await this.sql.query<{ tenant: string; source_id: string; n: number }>(
      `SELECT tenant, auth->>'sourceId' AS source_id, count(*)::int AS n FROM rm_occurrences
        WHERE status = 'observed' AND auth->>'sourceId' IS NOT NULL GROUP BY 1, 2`,
    );
    this.perSource = new Map(rows.map((r) => [`${r.tenant}\u0000${r.source_id}`, r.n]));
    this.total = rows.reduce((sum, r) => sum + r.n, 0);
  }

  private startRefreshing(): void {
    void this.refresh().catch(() => undefined);
    this.timer = setInterval(() => {
      if (Date.now() - this.servedAt > IDLE_MS) return this.stopRefreshing();
      void this.refresh().catch(() => undefined);
    }, REFRESH_MS);
    this.timer.unref();
  }

  private stopRefreshing(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
