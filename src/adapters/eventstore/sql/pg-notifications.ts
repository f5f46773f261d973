import pg from 'pg';
import type { SqlNotifications } from '../../../projections/sql-client.js';
import { translateStoreError } from './store-errors.js';

const RECONNECT_MS = 1_000;
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Channels are database-wide, so each is named after the schema too: deployments (and test suites) sharing one
 * database in separate schemas never hear each other.
 */
export class PgNotifications implements SqlNotifications {
  constructor(
    private readonly pool: pg.Pool,
    private readonly connectionString: string,
    private readonly schema: string | undefined,
  ) {}

  async notify(topic: string, payload: string): Promise<void> {
    try {
      await this.pool.query('SELECT pg_notify($1, $2)', [this.channel(topic), payload]);
    } catch (error) {
      throw translateStoreError(error);
    }
  }

  /**
   * A listening session's connection sends nothing after its LISTEN, so pg_stat_activity shows that statement as
   * its last one. Sessions of another role show no statement without pg_read_all_stats: they count as not there.
   */
  async listening(topic: string): Promise<boolean> {
    try {
      const result = await this.pool.query<{ listening: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle'
           AND query = $1) AS listening`,
        [`LISTEN ${this.channel(topic)}`],
      );
      return result.rows[0]?.listening === true;
    } catch (error) {
      throw translateStoreError(error);
    }
  }

  listen(topic: string, onMessage: (payload: string) => void): () => Promise<void> {
    const channel = this.channel(topic);
    let stopped = false;
    let current: pg.Client | null = null;
    const run = async () => {
      while (!stopped) {
        const client = new pg.Client({ connectionString: this.connectionString, connectionTimeoutMillis: 5_000 });
        client.on('error', () => undefined);
        client.on('notification', (message) => {
          if (message.channel === channel && message.payload !== undefined) onMessage(message.payload);
        });
        const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
        try {
          await client.connect();
          current = client;
          if (stopped) break;
          await client.query(`LISTEN ${channel}`);
          await ended;
        } catch {
          // Unreachable or lost: messages meanwhile are missed, which the caches' TTL bounds.
        }
        current = null;
        await client.end().catch(() => undefined);
        if (!stopped) await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS).unref());
      }
    };
    const loop = run();
    return async () => {
      stopped = true;
      await current?.end().catch(() => undefined);
      await loop;
    };
  }

  private channel(topic: string): string {
    const name = `reveille_${topic}${this.schema ? `_${this.schema}` : ''}`;
    if (!CHANNEL.test(name)) throw new Error(`invalid notification channel ${name}`);
    return name;
  }
}
