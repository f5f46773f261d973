import { randomUUID } from 'node:crypto';
import type { SqlClient, SqlSession } from '../../../projections/sql-client.js';

const RETRY_SESSION_MS = 30_000;

/**
 * Who holds an in-flight Idempotency-Key, so a retry after a crash need not wait out the lease (SEC-3).
 * Embedded: one process per data directory (its lock), so a holder that is not this process is gone.
 * PostgreSQL: a process is alive while its own session is, which a SIGKILL ends at once; the holder is
 * that session's pid and start, checked in `pg_stat_activity`. Without a session (none opened, or lost)
 * a holder's lease is all there is.
 */
export class KeyHolders {
  private readonly embedded = `embedded:${randomUUID()}`;
  private session: Promise<{ session: SqlSession; holder: string } | null> | null = null;
  /** After a failed attempt, claims go on under their leases alone for a while rather than each trying to connect. */
  private nextAttemptAt = 0;

  constructor(private readonly sql: SqlClient) {}

  /** This process, as recorded on the keys it claims; null when nobody could check it is alive. */
  async me(): Promise<string | null> {
    if (this.sql.kind === 'pglite') return this.embedded;
    if (!this.sql.openSession || (this.session === null && Date.now() < this.nextAttemptAt)) return null;
    this.session ??= this.openSession();
    return (await this.session)?.holder ?? null;
  }

  async isGone(holder: string | null): Promise<boolean> {
    if (holder === null || holder === (await this.me())) return false;
    if (holder.startsWith('embedded:')) return this.sql.kind === 'pglite';
    const session = /^pg:(\d+):(.+)$/.exec(holder);
    if (!session || this.sql.kind !== 'postgres') return false;
    const { rows } = await this.sql.query<{ alive: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
                       WHERE pid = $1 AND extract(epoch FROM backend_start)::text = $2) AS alive`,
      [Number(session[1]), session[2]],
    );
    return rows[0]?.alive === false;
  }

  async close(): Promise<void> {
    const opened = await this.session;
    this.session = null;
    await opened?.session.close();
  }

  private async openSession(): Promise<{ session: SqlSession; holder: string } | null> {
    try {
      const session = await this.sql.openSession!();
      // A lost session makes this process look gone: the next claim opens another under a new name.
      session.onLost(() => (this.session = null));
      const { rows } = await session.query<{ pid: number; started: string }>(
        `SELECT pid, extract(epoch FROM backend_start)::text AS started FROM pg_stat_activity WHERE pid = pg_backend_pid()`,
      );
      const row = rows[0];
      if (!row) {
        await session.close();
        return null;
      }
      return { session, holder: `pg:${row.pid}:${row.started}` };
    } catch {
      this.session = null;
      this.nextAttemptAt = Date.now() + RETRY_SESSION_MS;
      return null;
    }
  }
}
