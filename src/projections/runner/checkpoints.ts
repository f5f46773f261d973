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
