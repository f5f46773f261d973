import pg from 'pg';
import type {
  SqlClient,
  SqlExecutor,
  SqlQuery,
  SqlResult,
  SqlSession,
  TransactionOptions,
} from '../../../projections/sql-client.js';
import { translateStoreError } from './store-errors.js';
import { PgNotifications } from './pg-notifications.js';

export interface PgClientOptions {
  connectionString: string;
  schema?: string;
  max?: number;
  /** false: a schema that does not exist stays so (a reader such as `audit verify` creates nothing). */
  createSchema?: boolean;
}

/** Few: only short writes whose durability rides on a later commit or a rebuild use them (replay rows, checkpoints). */
const UNFLUSHED_POOL_SIZE = 8;

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export class PgSqlClient implements SqlClient {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly unflushedPool: pg.Pool;
  readonly unflushed: SqlExecutor;
  readonly notifications: PgNotifications;

  private constructor(
    pool: pg.Pool,
    unflushedPool: pg.Pool,
    options: PgClientOptions,
    private readonly clientConfig: pg.ClientConfig,
  ) {
    this.pool = pool;
    this.unflushedPool = unflushedPool;
    this.notifications = new PgNotifications(pool, options.connectionString, options.schema);
    // An idle client losing its connection must not crash the process; the next query reports it.
    this.pool.on('error', () => undefined);
    this.unflushedPool.on('error', () => undefined);
    this.unflushed = {
      query: (q, v) => run(this.unflushedPool, q, v),
      exec: (script) => exec(this.unflushedPool, script),
    };
  }

  static async connect(options: PgClientOptions): Promise<PgSqlClient> {
    if (options.schema !== undefined && !IDENTIFIER.test(options.schema))
      throw new Error(`invalid schema name ${options.schema}`);
    const searchPath = options.schema ? `-c search_path=${options.schema}` : '';
    const config = (settings: string): pg.ClientConfig => ({
      connectionString: options.connectionString,
      connectionTimeoutMillis: 5000,
      options: settings.trim() || undefined,
    });
    const pool = (max: number, settings: string) => new pg.Pool({ ...config(settings), max });
    const client = new PgSqlClient(
      pool(options.max ?? 20, searchPath),
      pool(UNFLUSHED_POOL_SIZE, `${searchPath} -c synchronous_commit=off`),
      options,
      config(searchPath),
    );
    if (options.schema && options.createSchema !== false)
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${options.schema}`);
    return client;
  }

  async query<R>(query: string | SqlQuery, values?: unknown[]): Promise<SqlResult<R>> {
    return run<R>(this.pool, query, values);
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    let connection: pg.PoolClient;
    try {
      connection = await this.pool.connect();
    } catch (error) {
      throw translateStoreError(error);
    }
    let broken = false;
    try {
      // With BEGIN in one round trip: a statement of its own was one more per transactional fold.
      await connection.query(options.unflushed ? 'BEGIN; SET LOCAL synchronous_commit TO OFF' : 'BEGIN');
      const result = await work({ query: (q, v) => run(connection, q, v), exec: (script) => exec(connection, script) });
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

  async openSession(): Promise<SqlSession> {
    const client = new pg.Client(this.clientConfig);
    const lost: Array<() => void> = [];
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      lost.splice(0).forEach((listener) => listener());
    };
    client.on('error', end);
    client.on('end', end);
    try {
      await client.connect();
    } catch (error) {
      throw translateStoreError(error);
    }
    return {
      query: (q, v) => run(client, q, v),
      onLost: (listener) => (ended ? listener() : lost.push(listener)),
      close: async () => {
        lost.length = 0;
        await client.end().catch(() => undefined);
      },
    };
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.end(), this.unflushedPool.end()]);
  }
}

async function exec(connection: pg.PoolClient | pg.Pool, script: string): Promise<void> {
  try {
    await connection.query(script);
  } catch (error) {
    throw translateStoreError(error);
  }
}

async function run<R>(
  target: pg.Pool | pg.PoolClient | pg.Client,
  query: string | SqlQuery,
  values?: unknown[],
): Promise<SqlResult<R>> {
  try {
    const config =
      typeof query === 'string'
        ? { text: query, values }
        : { name: query.name, text: query.text, values: query.values ?? values };
    const result = await target.query(config);
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
  } catch (error) {
    throw translateStoreError(error);
  }
}
