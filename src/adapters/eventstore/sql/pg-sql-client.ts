import pg from 'pg';
import type { SqlClient, SqlExecutor, SqlQuery, SqlResult } from './sql-client.js';
import { translateStoreError } from './store-errors.js';

export interface PgClientOptions {
  connectionString: string;
  /** Isolates a deployment (or a test file) in its own schema. */
  schema?: string;
  max?: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export class PgSqlClient implements SqlClient {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;

  private constructor(pool: pg.Pool) {
    this.pool = pool;
    // An idle client losing its connection must not crash the process; the next query reports it.
    this.pool.on('error', () => undefined);
  }

  static async connect(options: PgClientOptions): Promise<PgSqlClient> {
    if (options.schema !== undefined && !IDENTIFIER.test(options.schema)) throw new Error(`invalid schema name ${options.schema}`);
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.max ?? 20,
      connectionTimeoutMillis: 5000,
      options: options.schema ? `-c search_path=${options.schema}` : undefined,
    });
    const client = new PgSqlClient(pool);
    if (options.schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${options.schema}`);
    return client;
  }

  async query<R>(query: string | SqlQuery, values?: unknown[]): Promise<SqlResult<R>> {
    return run<R>(this.pool, query, values);
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    let connection: pg.PoolClient;
    try {
      connection = await this.pool.connect();
    } catch (error) {
      throw translateStoreError(error);
    }
    let broken = false;
    try {
      await connection.query('BEGIN');
      const result = await work({ query: (q, v) => run(connection, q, v) });
      await connection.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await connection.query('ROLLBACK');
      } catch {
        broken = true;
      }
      throw translateStoreError(error);
    } finally {
      connection.release(broken);
    }
  }

  async exec(script: string): Promise<void> {
    await this.query(script);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

async function run<R>(target: pg.Pool | pg.PoolClient, query: string | SqlQuery, values?: unknown[]): Promise<SqlResult<R>> {
  try {
    const config = typeof query === 'string' ? { text: query, values } : { name: query.name, text: query.text, values: query.values ?? values };
    const result = await target.query(config);
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
  } catch (error) {
    throw translateStoreError(error);
  }
}
