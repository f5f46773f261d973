import type { SqlClient } from '../../../projections/sql-client.js';

export type KeyClaim =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: unknown }
  | { kind: 'conflict' }
  | { kind: 'in_flight' };

export interface KeyRequest {
  tenant: string;
  key: string;
  operation: string;
  fingerprint: string;
}

const LEASE_SECONDS = 60;

/** SEC-3 key records in PostgreSQL; uniqueness of (tenant, key) decides racing first uses. */
export class IdempotencyStore {
  constructor(
    private readonly sql: SqlClient,
    private readonly retentionHours: number,
  ) {}

  async claim(request: KeyRequest): Promise<KeyClaim> {
    const inserted = await this.sql.query(
      `INSERT INTO idempotency_keys (tenant, key, operation, fingerprint, state, lease_until, expires_at)
       VALUES ($1, $2, $3, $4, 'in_flight', now() + make_interval(secs => $5), now() + make_interval(hours => $6))
       ON CONFLICT (tenant, key) DO NOTHING`,
      [request.tenant, request.key, request.operation, request.fingerprint, LEASE_SECONDS, this.retentionHours],
    );
    if (inserted.rowCount === 1) return { kind: 'claimed' };
    const { rows } = await this.sql.query<{
      fingerprint: string;
      state: string;
      response_status: number | null;
      response_body: unknown;
      lease_expired: boolean;
    }>(
      `SELECT fingerprint, state, response_status, response_body, lease_until < now() AS lease_expired
         FROM idempotency_keys WHERE tenant = $1 AND key = $2`,
      [request.tenant, request.key],
    );
    const row = rows[0];
    if (!row) return this.claim(request); // swept between the two statements
    // Checked before anything about the first use is disclosed
    if (row.fingerprint !== request.fingerprint) return { kind: 'conflict' };
    if (row.state === 'done') return { kind: 'replay', status: row.response_status!, body: row.response_body };
    if (row.lease_expired && (await this.takeOver(request))) return { kind: 'claimed' };
    return { kind: 'in_flight' };
  }

  async complete(request: KeyRequest, status: number, body: unknown): Promise<void> {
    await this.sql.query(
      `UPDATE idempotency_keys SET state = 'done', response_status = $3, response_body = $4::jsonb
        WHERE tenant = $1 AND key = $2 AND fingerprint = $5`,
      [request.tenant, request.key, status, JSON.stringify(body ?? null), request.fingerprint],
    );
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

  private async takeOver(request: KeyRequest): Promise<boolean> {
    const { rowCount } = await this.sql.query(
      `UPDATE idempotency_keys SET lease_until = now() + make_interval(secs => $3)
        WHERE tenant = $1 AND key = $2 AND state = 'in_flight' AND lease_until < now()`,
      [request.tenant, request.key, LEASE_SECONDS],
    );
    return rowCount === 1;
  }
}
