import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { SQL_CLIENT, type SqlClient } from '../eventstore/sql/sql-client.js';

const REFRESH_MS = 500;

export interface BackpressureLimits {
  perSource: number;
  global: number;
}

/**
 * WH-8: outstanding unadmitted occurrences, per source and overall. The hot path reads an in-memory
 * snapshot refreshed from the occurrences read model, so shedding load costs no query.
 */
@Injectable()
export class Backpressure implements OnApplicationBootstrap, OnApplicationShutdown {
  private perSource = new Map<string, number>();
  private total = 0;
  private timer: NodeJS.Timeout | null = null;
  readonly limits: BackpressureLimits = {
    perSource: Number(process.env.REVEILLE_MAX_OUTSTANDING_PER_SOURCE ?? 10_000),
    global: Number(process.env.REVEILLE_MAX_OUTSTANDING ?? 100_000),
  };

  constructor(@Inject(SQL_CLIENT) private readonly sql: SqlClient) {}

  /** null when there is room; otherwise the reason for a 429. */
  check(tenant: string, sourceId: string): string | null {
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

  async refresh(): Promise<void> {
    const { rows } = await this.sql.query<{ tenant: string; source_id: string; n: number }>(
      `SELECT tenant, auth->>'sourceId' AS source_id, count(*)::int AS n FROM rm_occurrences
        WHERE status = 'observed' AND auth->>'sourceId' IS NOT NULL GROUP BY 1, 2`,
    );
    this.perSource = new Map(rows.map((r) => [`${r.tenant}\u0000${r.source_id}`, r.n]));
    this.total = rows.reduce((sum, r) => sum + r.n, 0);
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.refresh().catch(() => undefined), REFRESH_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
