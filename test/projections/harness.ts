import { eventStoreMigrations } from '../../src/adapters/eventstore/sql/migrations.js';
import type { SqlClient } from '../../src/projections/sql-client.js';
import { SqlEventStore } from '../../src/adapters/eventstore/sql/sql-event-store.js';
import type { Projection } from '../../src/projections/runner/projection.js';
import { ProjectionRunner } from '../../src/projections/runner/projection-runner.js';
import { dropSchema, freshPglite, freshPostgres } from '../support/databases.js';

export type DbKind = 'postgres' | 'pglite';

/** A store plus read-model database with the given projections, driven by hand (no background loop). */
export interface ProjectionHarness {
  sql: SqlClient;
  store: SqlEventStore;
  runners: ProjectionRunner[];
  catchUp(): Promise<void>;
  /** Every row of every table of `projection`, as canonical JSON, in a stable order. */
  dump(projection: Projection): Promise<Record<string, unknown[]>>;
  close(): Promise<void>;
}

export async function openHarness(kind: DbKind, projections: Projection[]): Promise<ProjectionHarness> {
  const migrations = [...eventStoreMigrations, ...projections.flatMap((p) => p.migrations)];
  const { sql, schema } =
    kind === 'postgres'
      ? await freshPostgres(migrations, { max: 4 })
      : { sql: await freshPglite(migrations), schema: null };
  const store = new SqlEventStore(sql);
  // Small batches so a rebuild crosses several transactions.
  const runners = projections.map((p) => new ProjectionRunner(sql, store, p, { batchSize: 3 }));
  return {
    sql,
    store,
    runners,
    async catchUp() {
      for (const runner of runners) await runner.catchUp();
    },
    dump: (projection) => dumpTables(sql, projection),
    async close() {
      await sql.close();
      if (schema) await dropSchema(schema);
    },
  };
}

/** Every row of every table of `projection`, as JSON, in a stable order. */
export async function dumpTables(sql: SqlClient, projection: Projection): Promise<Record<string, unknown[]>> {
  const tables: Record<string, unknown[]> = {};
  for (const table of projection.tables) {
    const { rows } = await sql.query<{ row: unknown }>(
      `SELECT to_jsonb(t) AS row FROM ${table} t ORDER BY to_jsonb(t)::text`,
    );
    tables[table] = rows.map((r) => r.row);
  }
  return tables;
}

export const clearTables = (sql: SqlClient, projection: Projection): Promise<void> =>
  sql.transaction(async (tx) => void (await Promise.all(projection.tables.map((t) => tx.query(`DELETE FROM ${t}`)))));

/** A repeatable pseudo-random sequence in [0, 1) for scenario tests. */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

/** A runner of `projection` that throws inside the `crashAt`-th handled event, once. */
export function crashingRunner(h: ProjectionHarness, projection: Projection, crashAt: number): ProjectionRunner {
  return new ProjectionRunner(h.sql, h.store, crashingProjection(projection, crashAt), { batchSize: 3 });
}

/** `projection`, throwing inside the `crashAt`-th handled event, once. */
export function crashingProjection(projection: Projection, crashAt: number): Projection {
  let seen = 0;
  const crashing: Projection = {
    ...projection,
    async apply(event, tx) {
      if (++seen === crashAt) throw new Error('simulated crash');
      await projection.apply(event, tx);
    },
  };
  // Batches sent as one script fail inside the database, after the statements before them ran.
  const crash = { text: `SELECT 'simulated crash'::int` };
  if (projection.evolve) crashing.evolve = (event) => (++seen === crashAt ? [crash] : projection.evolve!(event));
  if (projection.applyBatch && !projection.evolve) {
    crashing.applyBatch = async (events, tx) => {
      for (const [i] of events.entries()) {
        if (++seen !== crashAt) continue;
        await projection.applyBatch!(events.slice(0, i), tx);
        throw new Error('simulated crash');
      }
      await projection.applyBatch!(events, tx);
    };
  }
  if (projection.evolveBatch) {
    crashing.evolveBatch = (events) => {
      for (const [i] of events.entries())
        if (++seen === crashAt) return [...projection.evolveBatch!(events.slice(0, i)), crash];
      return projection.evolveBatch!(events);
    };
  }
  if (projection.scriptFor) {
    crashing.scriptFor = (events) => {
      if (projection.scriptFor!(events) === null) return null; // folded by applyBatch, which counts them
      for (const [i] of events.entries())
        if (++seen === crashAt) return [...(projection.scriptFor!(events.slice(0, i)) ?? []), crash];
      return projection.scriptFor!(events);
    };
  }
  return crashing;
}

/** Re-applies every handled event of the log once more, as a batch replayed after a lost checkpoint would. */
export async function replayAll(h: ProjectionHarness, projection: Projection): Promise<void> {
  const events = await h.store.readAll({ maxCount: 10_000 });
  await h.sql.transaction(async (tx) => {
    for (const event of events) if (projection.handles.includes(event.type)) await projection.apply(event, tx);
  });
}
