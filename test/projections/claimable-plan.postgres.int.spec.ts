import type { PgSqlClient } from '../../src/adapters/eventstore/sql/pg-sql-client.js';
import { pendingExecutionsMigrations } from '../../src/projections/pending-executions/pending-executions.migrations.js';
import { claimableExecutions } from '../../src/projections/pending-executions/pending-executions.queries.js';
import type { SqlExecutor, SqlQuery } from '../../src/projections/sql-client.js';
import { dropSchema, freshPostgres } from '../support/databases.js';

const BACKLOG = 2_000;
const RUNNING = 16;
const LIMIT = 32;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Alias?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** Rows the plan read from the candidates' side of the query (alias `p`), kept or filtered out. */
function candidateRowsRead(node: PlanNode): number {
  const own =
    node['Relation Name'] === 'rm_pending_executions' && node.Alias === 'p'
      ? ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) * (node['Actual Loops'] ?? 1)
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + candidateRowsRead(child), 0);
}

/**
 * EX-2 claim-next under a burst: each call reads about as many candidates as it asks for, not the whole backlog,
 * even while the table's statistics still describe it as empty (autovacuum analyzes a table at most once a
 * minute, a burst fills it in seconds) and with the generic plan a prepared statement settles on.
 */
describe('EX-2 claim-next candidates: read in acceptance order up to the limit, whatever the backlog (postgres)', () => {
  let sql: PgSqlClient;
  let schema: string;

  beforeAll(async () => {
    ({ sql, schema } = await freshPostgres(pendingExecutionsMigrations, { max: 1 }));
    await sql.query('ANALYZE rm_pending_executions'); // analyzed while empty, as after a quiet spell
    // A burst: the oldest RUNNING are claimed (holding their Mission's slots), the rest queue behind them.
    await sql.query(
      `INSERT INTO rm_pending_executions
         (execution_id, tenant, mission_id, trigger_id, lane, position, claimed, holds_slot, max_concurrent,
          claim_by, claim_within, next_attempt_at)
       SELECT 'e-' || g, 'acme', 'm-1', 't-1', 'trigger:t-1', g, g <= $1, g <= $1, 10000,
              now() + interval '60 seconds', 60, NULL
         FROM generate_series(1, $2::int) g`,
      [RUNNING, BACKLOG],
    );
  });
  afterAll(async () => {
    await sql.close();
    await dropSchema(schema);
  });

  it.each(['auto', 'force_generic_plan'])('plan_cache_mode %s', async (mode) => {
    // The statement claim-next sends, captured, then explained as the server runs it.
    let sent: SqlQuery | null = null;
    const capturing: SqlExecutor = {
      query: async (query, values) => {
        sent = typeof query === 'string' ? { text: query, values } : query;
        return sql.query(query, values);
      },
    };
    const candidates = await claimableExecutions(capturing, 'acme', {}, LIMIT);
    expect(candidates.map((c) => c.executionId)).toEqual(
      Array.from({ length: LIMIT }, (_, i) => `e-${RUNNING + 1 + i}`),
    );
    const { text, values } = sent!;
    const literal = (value: unknown) =>
      value === null || value === undefined
        ? 'NULL'
        : typeof value === 'number'
          ? String(value)
          : `'${String(value).replace(/'/g, "''")}'`;
    const probe = `claimable_probe_${mode}`;
    const plan = await sql.transaction(async (tx) => {
      await tx.query(`SET LOCAL plan_cache_mode = ${mode}`);
      await tx.query(`PREPARE ${probe}(text, text, text, int) AS ${text}`);
      const { rows } = await tx.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${probe}(${values!.map(literal).join(', ')})`,
      );
      await tx.query(`DEALLOCATE ${probe}`);
      return rows[0]!['QUERY PLAN'][0]!.Plan;
    });
    // The running ones it passes over and the ones it hands out: the backlog behind them is never read.
    expect(candidateRowsRead(plan)).toBeLessThanOrEqual(RUNNING + LIMIT + 1);
  });
});
