import { Inject, Injectable } from '@nestjs/common';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';
import { TokenBuckets } from './token-bucket.js';

const SAMPLES_PER_SECOND = 5;

/**
 * WH-9: every rejected attempt is counted (in memory, per source and reason); only a rate-limited
 * sample becomes a row, with metadata alone — an attacker cannot fill the database or plant bodies.
 */
@Injectable()
export class IngressAudit {
  private readonly counts = new Map<string, number>();
  private readonly sampling = new TokenBuckets(1_000);

  constructor(@Inject(SQL_CLIENT) private readonly sql: SqlClient) {}

  record(sourceId: string, reason: string, status: number, size: number | null): void {
    const key = `${sourceId}\u0000${reason}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    if (!this.sampling.take(sourceId, SAMPLES_PER_SECOND, SAMPLES_PER_SECOND).ok) return;
    // Best effort: an audit row must never turn a rejection into a 5xx.
    this.sql
      .query('INSERT INTO ingress_audit (source_id, reason, status, size) VALUES ($1, $2, $3, $4)', [
        sourceId.slice(0, 256),
        reason,
        status,
        size,
      ])
      .catch(() => undefined);
  }

  counters(): Array<{ sourceId: string; reason: string; count: number }> {
    return [...this.counts.entries()].map(([key, count]) => {
      const [sourceId, reason] = key.split('\u0000') as [string, string];
      return { sourceId, reason, count };
    });
  }
}
