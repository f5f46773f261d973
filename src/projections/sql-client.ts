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
  /**
   * The one row this statement reads and writes, as a key. Statements touching different rows commute, so a
   * projection batch may run those of one text as one statement (runner/statement-merge.ts). Unset when the
   * statement reads any other row: it then runs alone, after everything before it and before everything after.
   */
  touches?: string;
}

export interface SqlExecutor {
  query<R = Record<string, unknown>>(query: string | SqlQuery, values?: unknown[]): Promise<SqlResult<R>>;
  /** Runs a script of several statements without parameters in one round trip. */
  exec?(script: string): Promise<void>;
}

export interface TransactionOptions {
  /** Its commit does not wait for its WAL flush (synchronous_commit off): rows a rebuild can make again. */
  unflushed?: boolean;
}

export interface SqlClient extends SqlExecutor {
  readonly kind: 'postgres' | 'pglite';
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Runs a script of several statements in one implicit transaction (migrations, projection batches). */
  exec(script: string): Promise<void>;
  /**
   * Optional: statements whose commit does not wait for its WAL flush (synchronous_commit off). Only
   * for rows that a later synchronous commit in the same database must flush before anyone relies on them.
   */
  readonly unflushed?: SqlExecutor;
  /** Optional: messages between the processes sharing this database (and schema); PGlite has one process only. */
  readonly notifications?: SqlNotifications;
  /** Optional (PostgreSQL): a connection of its own, outside the pool, kept until closed. */
  openSession?(): Promise<SqlSession>;
  close(): Promise<void>;
}

export interface SqlSession extends SqlExecutor {
  /** Called once if the connection drops; the session is then unusable. */
  onLost(listener: () => void): void;
  close(): Promise<void>;
}

/** PostgreSQL LISTEN/NOTIFY: at most once, in commit order, lost while a listener is disconnected. */
export interface SqlNotifications {
  notify(topic: string, payload: string): Promise<void>;
  /** One dedicated connection, reconnected when lost; the answer stops it. */
  listen(topic: string, onMessage: (payload: string) => void): () => Promise<void>;
  /** Whether a session (of any process) listens to `topic` now, so a sender with nobody to tell sends nothing. */
  listening(topic: string): Promise<boolean>;
}

export const SQL_CLIENT = Symbol('SQL_CLIENT');
