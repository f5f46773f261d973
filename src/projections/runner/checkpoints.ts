import type { SqlExecutor, SqlQuery } from '../sql-client.js';

/** Subscription checkpoints, kept in PostgreSQL beside the read models they guard. */
export async function loadCheckpoint(sql: SqlExecutor, name: string): Promise<number> {
  const { rows } = await sql.query<{ position: string | number }>({
    name: 'reveille_load_checkpoint',
    text: 'SELECT position FROM checkpoints WHERE name = $1',
    values: [name],
  });
  return rows[0] ? Number(rows[0].position) : 0;
}

/** $1 name, $2 the position the writer read, $3 the new position. */
const ADVANCE_SQL = `INSERT INTO checkpoints (name, position) VALUES ($1, $3)
  ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, updated_at = now() WHERE checkpoints.position = $2`;

/** Compare-and-set from the position this runner read, so two runners can never both commit one batch. */
export async function advanceCheckpoint(sql: SqlExecutor, name: string, from: number, to: number): Promise<boolean> {
  const { rowCount } = await sql.query({
    name: 'reveille_advance_checkpoint',
    text: ADVANCE_SQL,
    values: [name, from, to],
  });
  return rowCount === 1;
}

/** Several checkpoints, each compared-and-set from its own `from`; answers the names that moved. */
const ADVANCE_MANY_SQL = `WITH u AS (SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS u(name, from_position, to_position))
  INSERT INTO checkpoints (name, position) SELECT name, to_position FROM u
  ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, updated_at = now()
  WHERE checkpoints.position = (SELECT from_position FROM u WHERE u.name = EXCLUDED.name)
  RETURNING name`;

interface PendingAdvance {
  name: string;
  from: number;
  to: number;
  settle: (moved: boolean | Error) => void;
}

const pendingAdvances = new WeakMap<SqlExecutor, PendingAdvance[]>();

/**
 * `advanceCheckpoint` for pages a subscription only passes (none of its types): the subscriptions of a thread pass
 * the same appends at about the same moment, so the advances asked for in one turn of the event loop share one
 * statement. Each idle subscription wrote its own, a steady hundred or more statements a second under load.
 */
export function advanceCheckpointSoon(sql: SqlExecutor, name: string, from: number, to: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const settle = (moved: boolean | Error) => (moved instanceof Error ? reject(moved) : resolve(moved));
    const pending = pendingAdvances.get(sql);
    if (pending) return void pending.push({ name, from, to, settle });
    pendingAdvances.set(sql, [{ name, from, to, settle }]);
    setImmediate(() => {
      const batch = pendingAdvances.get(sql)!;
      pendingAdvances.delete(sql);
      void advanceAll(sql, batch);
    });
  });
}

async function advanceAll(sql: SqlExecutor, batch: readonly PendingAdvance[]): Promise<void> {
  const names = new Set(batch.map((a) => a.name));
  try {
    if (batch.length === 1 || names.size < batch.length) {
      // One alone takes its prepared statement; a name twice (two runners of one subscription) one by one.
      for (const a of batch) a.settle(await advanceCheckpoint(sql, a.name, a.from, a.to));
      return;
    }
    const { rows } = await sql.query<{ name: string }>({
      name: 'reveille_advance_checkpoints',
      text: ADVANCE_MANY_SQL,
      values: [batch.map((a) => a.name), batch.map((a) => a.from), batch.map((a) => a.to)],
    });
    const moved = new Set(rows.map((row) => row.name));
    for (const a of batch) a.settle(moved.has(a.name));
  } catch (error) {
    for (const a of batch) a.settle(error instanceof Error ? error : new Error(String(error)));
  }
}

const MOVED = 'checkpoint moved under this runner: ';

/** A moved checkpoint fails the whole script; the failing cast reads a column, so the planner cannot raise it early. */
export function advanceCheckpointOrFail(name: string, from: number, to: number): SqlQuery {
  return {
    text: `WITH advanced AS (${ADVANCE_SQL} RETURNING 1)
           SELECT ('${MOVED}' || c.name)::int FROM checkpoints c WHERE c.name = $1 AND NOT EXISTS (SELECT 1 FROM advanced)`,
    values: [name, from, to],
  };
}

export const isCheckpointMoved = (error: unknown): boolean =>
  String((error as { message?: unknown } | null)?.message ?? '').includes(MOVED);

export async function resetCheckpoint(sql: SqlExecutor, name: string): Promise<void> {
  await sql.query('DELETE FROM checkpoints WHERE name = $1', [name]);
}

export class CheckpointConflict extends Error {
  override readonly name = 'CheckpointConflict';
  constructor(readonly subscription: string) {
    super(`checkpoint of ${subscription} moved under this runner`);
  }
}
