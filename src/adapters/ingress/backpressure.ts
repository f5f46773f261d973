import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { ReveilleConfig } from '../config/config.js';
import { CONFIG } from '../config/config.token.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';

const REFRESH_MS = 500;
/** A process that has not served ingress for this long stops counting (a background-only process never starts). */
const IDLE_MS = 10_000;

const FOLDED_BY = 'projection:occurrences';

export type BacklogReason = 'outstanding_source' | 'outstanding_global';

/**
 * WH-8: shedding load costs no query: the hot path reads an in-memory snapshot of the read model's
 * per-source counter, refreshed only while this process serves ingress.
 */
@Injectable()
export class Backpressure implements OnApplicationShutdown {
  private perSource = new Map<string, number>();
  private total = 0;
  private unfolded: Array<{ key: string; position: number }> = [];
  private timer: NodeJS.Timeout | null = null;
  private servedAt = 0;
  private refreshing: Promise<void> | null = null;
  readonly limits: { perSource: number; global: number };

  constructor(
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
    @Inject(CONFIG) config: ReveilleConfig,
  ) {
    this.limits = config.maxOutstanding;
  }

  check(tenant: string, sourceId: string): BacklogReason | null {
    this.servedAt = Date.now();
    if (!this.timer) this.startRefreshing();
    if (this.total >= this.limits.global) return 'outstanding_global';
    if ((this.perSource.get(`${tenant}\u0000${sourceId}`) ?? 0) >= this.limits.perSource) return 'outstanding_source';
    return null;
  }

  /** Counts this process's own accepts until a count of the read model includes them (its checkpoint passed `position`). */
  accepted(tenant: string, sourceId: string, position: number): void {
    const key = `${tenant}\u0000${sourceId}`;
    this.unfolded.push({ key, position });
    this.perSource.set(key, (this.perSource.get(key) ?? 0) + 1);
    this.total += 1;
  }

  refresh(): Promise<void> {
    this.refreshing ??= this.count().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  onApplicationShutdown(): void {
    this.stopRefreshing();
  }

  private async count(): Promise<void> {
    // The counter and how far the read model has folded, from one snapshot: accepts past that
    // point are not in the counter yet and are added to it. (Positions only approximate log order
    // across concurrent commits, so an accept may drop out one count early: a soft limit allows it.)
    const { rows } = await this.sql.query<{
      folded: string | number;
      tenant: string | null;
      source_id: string | null;
      n: number | null;
    }>(
      `SELECT c.folded, o.tenant, o.source_id, o.undecided AS n
         FROM (SELECT coalesce(max(position), 0) AS folded FROM checkpoints WHERE name = '${FOLDED_BY}') c
         LEFT JOIN rm_outstanding o ON o.undecided > 0`,
    );
    const folded = Number(rows[0]?.folded ?? 0);
    this.unfolded = this.unfolded.filter((a) => a.position > folded);
    const perSource = new Map<string, number>();
    for (const r of rows)
      if (r.tenant !== null && r.source_id !== null) perSource.set(`${r.tenant}\u0000${r.source_id}`, Number(r.n));
    for (const { key } of this.unfolded) perSource.set(key, (perSource.get(key) ?? 0) + 1);
    this.perSource = perSource;
    this.total = [...perSource.values()].reduce((sum, n) => sum + n, 0);
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
