import { eventStoreMigrations } from '../../src/adapters/eventstore/sql/migrations.js';
import { advanceCheckpoint, advanceCheckpointSoon, loadCheckpoint } from '../../src/projections/runner/checkpoints.js';
import type { SqlClient, SqlExecutor } from '../../src/projections/sql-client.js';
import { dropSchema, freshPglite, freshPostgres } from '../support/databases.js';

/** Counts the statements an executor is sent, passing each on. */
function counting(sql: SqlClient): { executor: SqlExecutor; sent: string[] } {
  const sent: string[] = [];
  const executor: SqlExecutor = {
    query: (query: any, values?: any) => {
      sent.push(typeof query === 'string' ? query : (query.name ?? query.text));
      return sql.query(query, values);
    },
    exec: (script: string) => sql.exec(script),
  } as SqlExecutor;
  return { executor, sent };
}

describe.each(['postgres', 'pglite'] as const)('OP-3 checkpoint advances of pages passed over (%s)', (kind) => {
  let sql: SqlClient;
  let schema: string | undefined;

  beforeAll(async () => {
    if (kind === 'postgres') ({ sql, schema } = await freshPostgres(eventStoreMigrations, { max: 2 }));
    else sql = await freshPglite(eventStoreMigrations);
  });
  afterAll(async () => {
    await sql.close();
    if (schema) await dropSchema(schema);
  });

  it('OP-3 advances asked for in one turn share one statement, each compared-and-set from its own position', async () => {
    await advanceCheckpoint(sql, 'a', 0, 5);
    await advanceCheckpoint(sql, 'b', 0, 7);
    const { executor, sent } = counting(sql);
    const answers = await Promise.all([
      advanceCheckpointSoon(executor, 'a', 5, 9), // from where it stands: moves
      advanceCheckpointSoon(executor, 'b', 6, 9), // another runner moved it to 7: refused
      advanceCheckpointSoon(executor, 'c', 0, 9), // never written: created
    ]);
    expect(answers).toEqual([true, false, true]);
    expect(sent).toEqual(['reveille_advance_checkpoints']);
    expect([await loadCheckpoint(sql, 'a'), await loadCheckpoint(sql, 'b'), await loadCheckpoint(sql, 'c')]).toEqual([
      9, 7, 9,
    ]);
  });

  it('OP-3 one alone takes the single statement; a name twice in one turn is advanced in order, one by one', async () => {
    await advanceCheckpoint(sql, 'd', 0, 1);
    const { executor, sent } = counting(sql);
    expect(await advanceCheckpointSoon(executor, 'd', 1, 2)).toBe(true);
    expect(
      await Promise.all([advanceCheckpointSoon(executor, 'd', 2, 3), advanceCheckpointSoon(executor, 'd', 2, 4)]),
    ).toEqual([true, false]);
    expect(sent).toEqual(['reveille_advance_checkpoint', 'reveille_advance_checkpoint', 'reveille_advance_checkpoint']);
    expect(await loadCheckpoint(sql, 'd')).toBe(3);
  });
});
