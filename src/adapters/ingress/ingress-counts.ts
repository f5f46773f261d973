import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';

/** What became of a delivery to a known source (unknown sources have no one to show it to). */
export type IngressOutcome = 'accepted' | 'duplicate' | 'ignored' | 'refused';

const FLUSH_MS = 1_000;

interface Tally {
  sourceId: string;
  outcome: IngressOutcome;
  reason: string;
  count: number;
  lastAt: Date;
}

/**
 * Per-source delivery counts for the operator's source view: a signed delivery no Trigger subscribes to
 * must not vanish from every view. Counted in memory and added to `ingress_counts` once a second in one
 * statement (never a write per delivery, so a storm costs no more database work than a quiet second);
 * processes add up, and an unclean stop loses at most the last second's counts.
 */
@Injectable()
export class IngressCounts implements OnApplicationShutdown {
  private readonly logger = new Logger('Ingress');
  private pending = new Map<string, Tally>();
  private flushing: Promise<void> = Promise.resolve();
  private readonly timer = setInterval(() => void this.flush(), FLUSH_MS).unref();

  constructor(@Inject(SQL_CLIENT) private readonly sql: SqlClient) {}

  count(sourceId: string, outcome: IngressOutcome, reason = ''): void {
    const key = `${sourceId}\u0000${outcome}\u0000${reason}`;
    const tally = this.pending.get(key);
    if (tally) {
      tally.count += 1;
      tally.lastAt = new Date();
    } else this.pending.set(key, { sourceId, outcome, reason, count: 1, lastAt: new Date() });
  }

  /** Adds what was counted since the last flush; a failed flush keeps its counts for the next one. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const tallies = [...this.pending.values()];
    this.pending = new Map();
    try {
      await (this.sql.unflushed ?? this.sql).query(
        `INSERT INTO ingress_counts (source_id, outcome, reason, count, last_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::timestamptz[])
         ON CONFLICT (source_id, outcome, reason) DO UPDATE
           SET count = ingress_counts.count + EXCLUDED.count, last_at = GREATEST(ingress_counts.last_at, EXCLUDED.last_at)`,
        [
          tallies.map((t) => t.sourceId),
          tallies.map((t) => t.outcome),
          tallies.map((t) => t.reason),
          tallies.map((t) => t.count),
          tallies.map((t) => t.lastAt.toISOString()),
        ],
      );
    } catch (error) {
      tallies.forEach((t) => this.merge(t));
      this.logger.warn(`ingress counts not written (kept for the next try): ${(error as Error).message}`);
    }
  }

  private merge(tally: Tally): void {
    const key = `${tally.sourceId}\u0000${tally.outcome}\u0000${tally.reason}`;
    const kept = this.pending.get(key);
    if (!kept) return void this.pending.set(key, tally);
    kept.count += tally.count;
    if (tally.lastAt > kept.lastAt) kept.lastAt = tally.lastAt;
  }
}

export interface SourceIngressView {
  sourceId: string;
  counts: { accepted: number; duplicate: number; ignored: number; refused: Record<string, number> };
  lastAcceptedAt: string | null;
  lastIgnoredAt: string | null;
  lastRefusedAt: string | null;
  recentRefusals: Array<{ reason: string; status: number; size: number | null; at: string }>;
}

const RECENT_REFUSALS = 20;

/** The counts of a source of `tenant`, or null when the tenant holds no such source id. */
export async function sourceIngressView(
  sql: SqlClient,
  tenant: string,
  sourceId: string,
): Promise<SourceIngressView | null> {
  const owner = await sql.query<{ tenant: string }>('SELECT tenant FROM ingress_routes WHERE source_id = $1', [
    sourceId,
  ]);
  if (owner.rows[0]?.tenant !== tenant) return null;
  const [counted, recent] = await Promise.all([
    sql.query<{ outcome: IngressOutcome; reason: string; count: string; last_at: Date | string }>(
      'SELECT outcome, reason, count, last_at FROM ingress_counts WHERE source_id = $1',
      [sourceId],
    ),
    sql.query<{ reason: string; status: number; size: number | null; at: Date | string }>(
      'SELECT reason, status, size, at FROM ingress_audit WHERE source_id = $1 ORDER BY at DESC, id DESC LIMIT $2',
      [sourceId, RECENT_REFUSALS],
    ),
  ]);
  const view: SourceIngressView = {
    sourceId,
    counts: { accepted: 0, duplicate: 0, ignored: 0, refused: {} },
    lastAcceptedAt: null,
    lastIgnoredAt: null,
    lastRefusedAt: null,
    recentRefusals: recent.rows.map((r) => ({ reason: r.reason, status: r.status, size: r.size, at: iso(r.at) })),
  };
  const latest = (a: string | null, b: string) => (a === null || b > a ? b : a);
  for (const row of counted.rows) {
    const count = Number(row.count);
    const at = iso(row.last_at);
    if (row.outcome === 'refused') {
      view.counts.refused[row.reason] = (view.counts.refused[row.reason] ?? 0) + count;
      view.lastRefusedAt = latest(view.lastRefusedAt, at);
    } else {
      view.counts[row.outcome] += count;
      if (row.outcome === 'ignored') view.lastIgnoredAt = latest(view.lastIgnoredAt, at);
      if (row.outcome === 'accepted') view.lastAcceptedAt = latest(view.lastAcceptedAt, at);
    }
  }
  return view;
}

function iso(value: Date | string): string {
  return new Date(value).toISOString();
}
