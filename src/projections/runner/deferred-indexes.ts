import type { Migration } from '../migration.js';
import type { Projection } from './projection.js';
import type { SqlClient } from '../sql-client.js';

/** Where a rebuild keeps the definitions of the read indexes it dropped, until they are built again. */
export const deferredIndexesMigration: Migration = {
  id: '0333_deferred_read_indexes',
  sql: `CREATE TABLE IF NOT EXISTS deferred_read_indexes (
          name        text PRIMARY KEY,
          definition  text NOT NULL,
          deferred_at timestamptz NOT NULL DEFAULT now()
        )`,
};

/** The index's definition as PostgreSQL would write it, when it exists in this schema. */
const DEFINITION = `SELECT pg_get_indexdef(c.oid) AS definition FROM pg_class c
                      JOIN pg_namespace n ON n.oid = c.relnamespace
                     WHERE c.relkind = 'i' AND c.relname = $1 AND n.nspname = current_schema()`;

/**
 * OP-3: a rebuild writes every row of every read model, and an index only queries read (`readIndexes`) costs every
 * one of those writes; built once afterwards it costs one sort. Its definition is recorded in the same transaction
 * that drops it, so a rebuild that dies half-way leaves it listed, and the next process to open the store
 * (`restoreDeferredIndexes`) builds it again.
 */
export async function deferReadIndexes(sql: SqlClient, projections: readonly Projection[]): Promise<string[]> {
  const names = projections.flatMap((p) => p.readIndexes ?? []);
  return sql.transaction(async (tx) => {
    const deferred: string[] = [];
    for (const name of names) {
      const { rows } = await tx.query<{ definition: string }>(DEFINITION, [name]);
      if (!rows[0]) continue;
      await tx.query(
        `INSERT INTO deferred_read_indexes (name, definition) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
        [name, rows[0].definition],
      );
      await tx.query(`DROP INDEX ${quoted(name)}`);
      deferred.push(name);
    }
    return deferred;
  });
}

/** Builds every deferred index again, each with the removal of its record, so none is built twice or forgotten; the names built. */
export async function restoreDeferredIndexes(sql: SqlClient): Promise<string[]> {
  const { rows } = await sql.query<{ name: string; definition: string }>(
    `SELECT name, definition FROM deferred_read_indexes ORDER BY deferred_at, name`,
  );
  const built: string[] = [];
  for (const { name, definition } of rows)
    await sql.transaction(async (tx) => {
      // Another process may be building it (both restore at start): its record is gone once that one commits.
      const { rowCount } = await tx.query(`DELETE FROM deferred_read_indexes WHERE name = $1`, [name]);
      if (rowCount === 0) return;
      if ((await tx.query(DEFINITION, [name])).rows.length === 0) await tx.query(definition);
      built.push(name);
    });
  return built;
}

const quoted = (identifier: string): string => `"${identifier.replaceAll('"', '""')}"`;

/**
 * `work` (a rebuild of `projections`) with their read indexes deferred: built again once after it, also when it
 * fails. Then the failure is what is thrown; a record the restore could not clear is built at the next start.
 * `onBuilt` hears each index built.
 */
export async function withReadIndexesDeferred(
  sql: SqlClient,
  projections: readonly Projection[],
  work: () => Promise<void>,
  onBuilt: (index: string) => void = () => undefined,
): Promise<void> {
  await deferReadIndexes(sql, projections);
  let done = false;
  try {
    await work();
    done = true;
  } finally {
    const restoring = restoreDeferredIndexes(sql);
    (done ? await restoring : await restoring.catch(() => [])).forEach(onBuilt);
  }
}
