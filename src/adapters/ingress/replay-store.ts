import { createHash } from 'node:crypto';
import type { SqlClient, SqlExecutor } from '../../projections/sql-client.js';
import { StatementBatcher } from '../eventstore/sql/statement-batcher.js';

/** GitHub signatures carry no timestamp, so the horizon outlasts GitHub's redelivery window (WH-4). */
export const GITHUB_REPLAY_HORIZON_SECONDS = 30 * 24 * 3600;

export type ReplayVerdict = 'first' | 'redelivery' | 'replayed_signature';

/**
 * The same signature under another delivery id is a replay of captured bytes — for schemes whose
 * signature does not cover the delivery id (GitHub), the only thing that catches it.
 */
export async function recordDelivery(
  sql: SqlClient,
  entry: { tenant: string; sourceId: string; deliveryId: string; signature: string; horizonSeconds: number },
  options: { flushWithNextCommit: boolean },
): Promise<ReplayVerdict> {
  const signatureDigest = createHash('sha256').update(entry.signature).digest('hex');
  // Committed without waiting for its own WAL flush: the occurrence append that follows in the same
  // database flushes the WAL up to and including this row before the delivery is acknowledged, so an
  // accepted delivery never outlives its replay record; one that ends before an append accepted nothing.
  const target = options.flushWithNextCommit && sql.unflushed ? sql.unflushed : sql;
  // Most deliveries are first sightings: concurrent ones share one multi-row insert; the rest (and
  // any the batch could not place) get their verdict from the single-row statement.
  if (await firstSightings(target).submit({ ...entry, signatureDigest })) return 'first';
  return insert(target, entry, signatureDigest);
}

interface Sighting {
  tenant: string;
  sourceId: string;
  deliveryId: string;
  signatureDigest: string;
  horizonSeconds: number;
}

const batchers = new WeakMap<SqlExecutor, StatementBatcher<Sighting, boolean>>();

function firstSightings(sql: SqlExecutor): StatementBatcher<Sighting, boolean> {
  let batcher = batchers.get(sql);
  if (!batcher)
    batchers.set(sql, (batcher = new StatementBatcher((sightings) => insertFirstSightings(sql, sightings))));
  return batcher;
}

async function insertFirstSightings(sql: SqlExecutor, sightings: Sighting[]): Promise<boolean[]> {
  const { rows } = await sql.query<{ delivery_id: string; tenant: string; source_id: string }>({
    name: 'reveille_record_deliveries',
    text: `INSERT INTO auth_replay (tenant, source_id, delivery_id, signature_digest, expires_at)
           SELECT tenant, source_id, delivery_id, signature_digest, now() + make_interval(secs => horizon)
             FROM jsonb_to_recordset($1::jsonb) AS x(tenant text, source_id text, delivery_id text, signature_digest text, horizon int)
           ON CONFLICT DO NOTHING
           RETURNING tenant, source_id, delivery_id`,
    values: [
      JSON.stringify(
        sightings.map((s) => ({
          tenant: s.tenant,
          source_id: s.sourceId,
          delivery_id: s.deliveryId,
          signature_digest: s.signatureDigest,
          horizon: s.horizonSeconds,
        })),
      ),
    ],
  });
  const recorded = new Set(rows.map((r) => JSON.stringify([r.tenant, r.source_id, r.delivery_id])));
  const seen = new Set<string>();
  return sightings.map((s) => {
    const key = JSON.stringify([s.tenant, s.sourceId, s.deliveryId]);
    // The same delivery twice in one batch: only the first caller may call it a first sighting.
    const first = recorded.has(key) && !seen.has(key);
    seen.add(key);
    return first;
  });
}

async function insert(
  sql: SqlExecutor,
  entry: { tenant: string; sourceId: string; deliveryId: string; horizonSeconds: number },
  signatureDigest: string,
): Promise<ReplayVerdict> {
  const { rows } = await sql.query<{ delivery_id: string; inserted: boolean }>({
    name: 'reveille_record_delivery',
    text: `WITH ins AS (
       INSERT INTO auth_replay (tenant, source_id, delivery_id, signature_digest, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))
       ON CONFLICT DO NOTHING RETURNING delivery_id)
     SELECT delivery_id, true AS inserted FROM ins
     UNION ALL
     SELECT delivery_id, false FROM auth_replay
      WHERE tenant = $1 AND source_id = $2 AND (delivery_id = $3 OR signature_digest = $4) AND NOT EXISTS (SELECT 1 FROM ins)`,
    values: [entry.tenant, entry.sourceId, entry.deliveryId, signatureDigest, entry.horizonSeconds],
  });
  if (rows.some((r) => r.inserted)) return 'first';
  return rows.some((r) => r.delivery_id === entry.deliveryId) ? 'redelivery' : 'replayed_signature';
}

export async function sweepReplayStore(sql: SqlExecutor): Promise<number> {
  return (await sql.query('DELETE FROM auth_replay WHERE expires_at < now()')).rowCount;
}
