import type { OnApplicationShutdown } from '@nestjs/common';
import type { SqlClient } from '../../../projections/sql-client.js';
import { StatementBatcher } from '../../eventstore/sql/statement-batcher.js';
import { KeyHolders } from './key-holders.js';

export type KeyClaim =
  | { kind: 'claimed'; takenOver?: true }
  /** `text`: the answer's body exactly as first serialized (null for answers stored before it was kept). */
  | { kind: 'replay'; status: number; body: unknown; text: string | null }
  | { kind: 'conflict' }
  | { kind: 'in_flight' };

export interface KeyRequest {
  tenant: string;
  key: string;
  operation: string;
  fingerprint: string;
}

interface Claim {
  request: KeyRequest;
  holder: string | null;
}

interface Answer {
  request: KeyRequest;
  status: number;
  body: unknown;
}

const LEASE_SECONDS = 60;

const CLAIM_SQL = `INSERT INTO idempotency_keys (tenant, key, operation, fingerprint, state, lease_until, expires_at, holder)
  SELECT u.tenant, u.key, u.operation, u.fingerprint, 'in_flight',
         now() + make_interval(secs => $5::int), now() + make_interval(hours => $6::int), u.holder
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $7::text[]) AS u(tenant, key, operation, fingerprint, holder)
  ON CONFLICT (tenant, key) DO NOTHING
  RETURNING tenant, key`;

const COMPLETE_SQL = `UPDATE idempotency_keys k SET state = 'done', response_status = u.status, response_text = u.body
   FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[]) AS u(tenant, key, fingerprint, status, body)
  WHERE k.tenant = u.tenant AND k.key = u.key AND k.fingerprint = u.fingerprint`;

const unreachable = (error: unknown) => (error as { name?: string } | null)?.name === 'StoreUnavailable';

const keyOf = ({ tenant, key }: Pick<KeyRequest, 'tenant' | 'key'>) => JSON.stringify([tenant, key]);

/**
 * SEC-3 key records in PostgreSQL; uniqueness of (tenant, key) decides racing first uses. The claims and the
 * answers of requests that arrive together share one statement (and its commit) each: two of the three commits
 * of a manual fire were these.
 */
export class IdempotencyStore implements OnApplicationShutdown {
  private readonly claims = new StatementBatcher<Claim, boolean>((batch) => this.insertClaims(batch));
  private readonly answers = new StatementBatcher<Answer, void>((batch) => this.storeAnswers(batch));
  private readonly holders: KeyHolders;

  constructor(
    private readonly sql: SqlClient,
    private readonly retentionHours: number,
  ) {
    this.holders = new KeyHolders(sql);
  }

  /**
   * A key in flight under a lease run out, or held by a process that is gone, is taken over: the request
   * runs again, and finds its own events if the first run committed them (decision 9, docs/architecture.md).
   */
  async claim(request: KeyRequest): Promise<KeyClaim> {
    const holder = await this.holders.me();
    if (await this.claims.submit({ request, holder })) return { kind: 'claimed' };
    const { rows } = await this.sql.query<{
      fingerprint: string;
      state: string;
      response_status: number | null;
      response_body: unknown;
      response_text: string | null;
      lease_expired: boolean;
      holder: string | null;
    }>(
      `SELECT fingerprint, state, response_status, response_body, response_text, lease_until < now() AS lease_expired, holder
         FROM idempotency_keys WHERE tenant = $1 AND key = $2`,
      [request.tenant, request.key],
    );
    const row = rows[0];
    if (!row) return this.claim(request); // swept between the two statements
    // Checked before anything about the first use is disclosed
    if (row.fingerprint !== request.fingerprint) return { kind: 'conflict' };
    if (row.state === 'done')
      return { kind: 'replay', status: row.response_status!, body: row.response_body, text: row.response_text };
    const abandoned = row.lease_expired || (await this.holders.isGone(row.holder));
    if (abandoned && (await this.takeOver(request, row.holder, holder))) return { kind: 'claimed', takenOver: true };
    return { kind: 'in_flight' };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.holders.close();
  }

  /** `body` is stored as its JSON text, the text the answer was sent as (JSON.stringify, Fastify's serializer). */
  complete(request: KeyRequest, status: number, body: unknown): Promise<void> {
    return this.answers.submit({ request, status, body });
  }

  /** A request that failed before or without effect stores nothing, so a corrected request may reuse the key. */
  async release(request: KeyRequest): Promise<void> {
    await this.sql.query(
      `DELETE FROM idempotency_keys WHERE tenant = $1 AND key = $2 AND state = 'in_flight' AND fingerprint = $3`,
      [request.tenant, request.key, request.fingerprint],
    );
  }

  async sweep(): Promise<number> {
    const { rowCount } = await this.sql.query(
      `DELETE FROM idempotency_keys WHERE expires_at < now() AND state = 'done'`,
    );
    return rowCount;
  }

  /** true: this request claimed its key. A key twice in one batch is sent once: the later request finds it in flight. */
  private async insertClaims(batch: readonly Claim[]): Promise<boolean[]> {
    const first = new Map<string, Claim>();
    for (const claim of batch) if (!first.has(keyOf(claim.request))) first.set(keyOf(claim.request), claim);
    const sent = [...first.values()].map((c) => c.request);
    const holders = [...first.values()].map((c) => c.holder);
    let rows: Array<{ tenant: string; key: string }>;
    try {
      ({ rows } = await this.sql.query<{ tenant: string; key: string }>({
        name: 'reveille_claim_keys',
        text: CLAIM_SQL,
        values: [
          sent.map((r) => r.tenant),
          sent.map((r) => r.key),
          sent.map((r) => r.operation),
          sent.map((r) => r.fingerprint),
          LEASE_SECONDS,
          this.retentionHours,
          holders,
        ],
      }));
    } catch (error) {
      // One bad row must not fail its neighbours: each gets its own answer. An unreachable store fails them all.
      if (batch.length === 1 || unreachable(error)) throw error;
      return Promise.all(batch.map(async (claim) => (await this.insertClaims([claim]))[0]!));
    }
    const claimed = new Set(rows.map(keyOf));
    return batch.map((claim) => first.get(keyOf(claim.request)) === claim && claimed.has(keyOf(claim.request)));
  }

  private async storeAnswers(batch: readonly Answer[]): Promise<void[]> {
    // Only the claimer answers, so a key comes once; were it twice, one UPDATE could not apply both.
    const unique = [...new Map(batch.map((a) => [keyOf(a.request), a])).values()];
    try {
      await this.sql.query({
        name: 'reveille_answer_keys',
        text: COMPLETE_SQL,
        values: [
          unique.map((a) => a.request.tenant),
          unique.map((a) => a.request.key),
          unique.map((a) => a.request.fingerprint),
          unique.map((a) => a.status),
          unique.map((a) => JSON.stringify(a.body ?? null)),
        ],
      });
    } catch (error) {
      if (batch.length === 1 || unreachable(error)) throw error;
      await Promise.all(batch.map((answer) => this.storeAnswers([answer])));
    }
    return batch.map(() => undefined);
  }

  /** Compared-and-set on the holder judged gone: of two racing retries, one takes the key. */
  private async takeOver(request: KeyRequest, gone: string | null, holder: string | null): Promise<boolean> {
    const { rowCount } = await this.sql.query(
      `UPDATE idempotency_keys SET lease_until = now() + make_interval(secs => $3), holder = $5
        WHERE tenant = $1 AND key = $2 AND state = 'in_flight' AND holder IS NOT DISTINCT FROM $4
          AND (lease_until < now() OR holder IS NOT NULL)`,
      [request.tenant, request.key, LEASE_SECONDS, gone, holder],
    );
    return rowCount === 1;
  }
}
