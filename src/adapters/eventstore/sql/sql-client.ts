/** The little both PostgreSQL drivers (pg and PGlite) share, so one SQL text serves both. */
export interface SqlResult<R> {
  rows: R[];
  rowCount: number;
}

export interface SqlQuery {
  /** A name makes pg prepare the statement once per connection (the append hot path). */
  name?: string;
  text: string;
  values?: unknown[];
}

export interface SqlExecutor {
  query<R = Record<string, unknown>>(query: string | SqlQuery, values?: unknown[]): Promise<SqlResult<R>>;
}

export interface SqlClient extends SqlExecutor {
  readonly kind: 'postgres' | 'pglite';
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Runs a script of several statements (migrations). */
  exec(script: string): Promise<void>;
  close(): Promise<void>;
}

export const SQL_CLIENT = Symbol('SQL_CLIENT');
