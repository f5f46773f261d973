import { PGlite } from '@electric-sql/pglite';
import type {
  SqlClient,
  SqlExecutor,
  SqlQuery,
  SqlResult,
  TransactionOptions,
} from '../../../projections/sql-client.js';
import type { DataDirLock } from './data-dir-lock.js';
import { translateStoreError } from './store-errors.js';

/** Embedded PostgreSQL (WebAssembly, in-process): the default when DATABASE_URL is unset. */
export class PgliteSqlClient implements SqlClient {
  readonly kind = 'pglite' as const;

  private constructor(
    private readonly db: PGlite,
    private readonly lock?: DataDirLock,
  ) {}

  /**
   * `lock`: the data directory's, held until close (one process per embedded store). `snapshot`: a
   * `dumpDataDir()` tarball to start an in-memory store from instead of running initdb (a third of the time;
   * the tests open hundreds of stores).
   */
  static async open(dataDir?: string, lock?: DataDirLock, snapshot?: Blob): Promise<PgliteSqlClient> {
    try {
      return new PgliteSqlClient(
        await PGlite.create({ ...(dataDir ? { dataDir } : {}), ...(snapshot ? { loadDataDir: snapshot } : {}) }),
        lock,
      );
    } catch (error) {
      lock?.release();
      throw error;
    }
  }

  async query<R>(query: string | SqlQuery, values?: unknown[]): Promise<SqlResult<R>> {
    return run<R>(this.db, query, values);
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    try {
      return await this.db.transaction(async (tx) => {
        if (options.unflushed) await tx.exec('SET LOCAL synchronous_commit TO OFF');
        return work({ query: (q, v) => run(tx, q, v), exec: async (script) => void (await tx.exec(script)) });
      });
    } catch (error) {
      throw translateStoreError(error);
    }
  }

  async exec(script: string): Promise<void> {
    try {
      await this.db.exec(script);
    } catch (error) {
      throw translateStoreError(error);
    }
  }

  /** The store's files as a tarball, for `open(…, snapshot)`. */
  async snapshot(): Promise<Blob> {
    return this.db.dumpDataDir('none');
  }

  async close(): Promise<void> {
    if (!this.db.closed) await this.db.close();
    this.lock?.release();
  }
}

interface PgliteQueryable {
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[]; affectedRows?: number }>;
}

async function run<R>(target: PgliteQueryable, query: string | SqlQuery, values?: unknown[]): Promise<SqlResult<R>> {
  const text = typeof query === 'string' ? query : query.text;
  const params = typeof query === 'string' ? values : (query.values ?? values);
  try {
    const result = await target.query<R>(text, params);
    // PGlite reports affectedRows 0 for a SELECT: rows returned count, as node-postgres counts them.
    return { rows: result.rows, rowCount: result.rows.length || (result.affectedRows ?? 0) };
  } catch (error) {
    throw translateStoreError(error);
  }
}
