import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';

/** What became of a delivery to a known source (unknown sources have no one to show it to). */
export type IngressOutcome = 'accepted' | 'duplicate' | 'ignored' | 'refused';

const FLUSH_MS = 1_000;

interface AuthOutcome {
  sourceId: string;
  result: 'verified' | 'unverified' | 'failed';
  keyId: string | null;
  reason: string | null;
  at: Date;
}

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
  /** The latest authentication outcome per source: only the last one is ever shown. */
  private auths = new Map<string, AuthOutcome>();
  /** Redeliveries per Trigger (tenant + id): the 200 that appends nothing. */
  private duplicates = new Map<string, { tenant: string; triggerId: string; count: number; lastAt: Date }>();
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

  /** OP-1: a delivery's authentication outcome; the health row of each Trigger on the source shows the latest. */
  authenticated(
    sourceId: string,
    outcome: { result: 'verified' | 'unverified' | 'failed'; keyId: string | null; reason?: string },
  ): void {
    this.auths.set(sourceId, { sourceId, ...outcome, reason: outcome.reason ?? null, at: new Date() });
  }

  duplicate(tenant: string, triggerId: string): void {
    const key = `${tenant}\u0000${triggerId}`;
    const seen = this.duplicates.get(key);
    if (seen) {
      seen.count += 1;
      seen.lastAt = new Date();
    } else this.duplicates.set(key, { tenant, triggerId, count: 1, lastAt: new Date() });
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
    await Promise.all([this.writeTallies(), this.writeAuths(), this.writeDuplicates()]);
  }

  private async writeAuths(): Promise<void> {
    if (this.auths.size === 0) return;
    const auths = [...this.auths.values()];
    this.auths = new Map();
    try {
      await (this.sql.unflushed ?? this.sql).query(
        `INSERT INTO ingress_auth (source_id, result, key_id, reason, at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])
         ON CONFLICT (source_id) DO UPDATE
           SET result = EXCLUDED.result, key_id = EXCLUDED.key_id, reason = EXCLUDED.reason, at = EXCLUDED.at
           WHERE EXCLUDED.at >= ingress_auth.at`,
        [
          auths.map((a) => a.sourceId),
          auths.map((a) => a.result),
          auths.map((a) => a.keyId),
          auths.map((a) => a.reason),
          auths.map((a) => a.at.toISOString()),
        ],
      );
    } catch (error) {
      auths.forEach((a) => (this.auths.get(a.sourceId)?.at ?? 0) < a.at && this.auths.set(a.sourceId, a));
      this.logger.warn(`ingress auth outcomes not written (kept for the next try): ${(error as Error).message}`);
    }
  }

  private async writeDuplicates(): Promise<void> {
    if (this.duplicates.size === 0) return;
    const duplicates = [...this.duplicates.values()];
    this.duplicates = new Map();
    try {
      await (this.sql.unflushed ?? this.sql).query(
        `INSERT INTO trigger_duplicates (tenant, trigger_id, count, last_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::timestamptz[])
         ON CONFLICT (tenant, trigger_id) DO UPDATE
           SET count = trigger_duplicates.count + EXCLUDED.count,
               last_at = GREATEST(trigger_duplicates.last_at, EXCLUDED.last_at)`,
        [
          duplicates.map((d) => d.tenant),
          duplicates.map((d) => d.triggerId),
          duplicates.map((d) => d.count),
          duplicates.map((d) => d.lastAt.toISOString()),
        ],
      );
    } catch (error) {
      for (const d of duplicates) for (let i = 0; i < d.count; i++) this.duplicate(d.tenant, d.triggerId);
      this.logger.warn(`duplicate counts not written (kept for the next try): ${(error as Error).message}`);
    }
  }

  private async writeTallies(): Promise<void> {
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

export interface TriggerIngress {
  auth: {
    lastResult: 'verified' | 'unverified' | 'failed';
    keyId: string | null;
    reason: string | null;
    at: string;
  } | null;
  duplicate: number;
}

/** OP-1: per Trigger of `tenant`, its source's latest authentication outcome and its redeliveries. */
export async function triggerIngress(
  sql: SqlClient,
  tenant: string,
  triggerIds: readonly string[],
): Promise<Map<string, TriggerIngress>> {
  if (triggerIds.length === 0) return new Map();
  const { rows } = await sql.query<{
    trigger_id: string;
    result: TriggerIngress['auth'] extends infer A ? (A extends { lastResult: infer R } ? R : never) : never;
    key_id: string | null;
    reason: string | null;
    at: Date | string | null;
    duplicates: string | null;
  }>(
    `SELECT t.id AS trigger_id, a.result, a.key_id, a.reason, a.at, d.count AS duplicates
       FROM unnest($2::text[]) AS t(id)
       LEFT JOIN rm_source_bindings b ON b.tenant = $1 AND b.trigger_id = t.id AND NOT b.deleted
       LEFT JOIN ingress_auth a ON a.source_id = b.source_id
       LEFT JOIN trigger_duplicates d ON d.tenant = $1 AND d.trigger_id = t.id`,
    [tenant, triggerIds],
  );
  return new Map(
    rows.map((r) => [
      r.trigger_id,
      {
        auth: r.result && r.at ? { lastResult: r.result, keyId: r.key_id, reason: r.reason, at: iso(r.at) } : null,
        duplicate: Number(r.duplicates ?? 0),
      },
    ]),
  );
}
