import { createHash, randomBytes } from 'node:crypto';
import type { EventStore } from '../../domain/ports/event-store.js';
import type { Migration } from '../migration.js';
import { loadCheckpoint } from '../runner/checkpoints.js';
import type { Projection } from '../runner/projection.js';
import type { PageChannel } from '../runner/page-channel.js';
import { rebuildReadModels } from '../runner/rebuild.js';
import type { SqlClient, SqlExecutor } from '../sql-client.js';

export interface TableComparison {
  projection: string;
  table: string;
  status: 'equal' | 'differs' | 'not_compared';
  live: number;
  rebuilt: number;
  /** Rows (as whole-row JSON, counted with multiplicity) only the live table holds, and only the rebuilt one. */
  onlyLive: number;
  onlyRebuilt: number;
  detail?: string;
}

export interface ReadModelCheckOptions {
  /** Creates the schema-level tables a runner needs (checkpoints), besides the projections' own migrations. */
  migrations: Migration[];
  run: (sql: SqlClient, migrations: Migration[]) => Promise<unknown>;
  onProgress?: (projection: string, scanned: number, reached: number) => void;
  /** The log as another pass reads it, to rebuild from instead of reading it again (RebuildOptions.pages). */
  pages?: PageChannel;
}

/**
 * AU-2, OP-3: every read model rebuilt from position 0 into a scratch schema of the same database (all at once,
 * from shared log reads), then compared row for row with the live one; the scratch schema is dropped afterwards.
 * Nothing live is written. A live read model whose checkpoint is not where the rebuild ended (a server still folding) is not compared.
 */
export async function checkReadModels(
  sql: SqlClient,
  store: EventStore,
  projections: readonly Projection[],
  options: ReadModelCheckOptions,
): Promise<TableComparison[]> {
  const { rows } = await sql.query<{ schema: string }>('SELECT current_schema() AS schema');
  const live = rows[0]!.schema;
  const scratch = scratchSchemaFor(live, randomBytes(6).toString('hex'));
  await sql.query(`CREATE SCHEMA ${scratch}`);
  try {
    const scoped = inSchema(sql, scratch);
    await options.run(scoped, [...options.migrations, ...projections.flatMap((p) => p.migrations)]);
    // Thrown away at the end: its rows need no write-ahead log (the rebuild writes every row of every read model).
    for (const table of projections.flatMap((p) => p.tables)) await scoped.query(`ALTER TABLE ${table} SET UNLOGGED`);
    // Rows are compared, never queried: every index a fold does not read through is one less to keep per row.
    for (const index of projections.flatMap((p) => p.readIndexes ?? [])) await scoped.query(`DROP INDEX ${index}`);
    const compared: TableComparison[][] = projections.map(() => []);
    await rebuildReadModels(scoped, store, projections, {
      pages: options.pages,
      onProgress: options.onProgress,
      onRebuilt: async (projection) => {
        const index = projections.indexOf(projection);
        const rebuiltAt = await loadCheckpoint(scoped, `projection:${projection.name}`);
        const liveAt = await loadCheckpoint(sql, `projection:${projection.name}`);
        for (const table of projection.tables) {
          const { samples, ...counts } = await compareTable(sql, quoted(live), quoted(scratch), table);
          const base = { projection: projection.name, table, ...counts };
          if (liveAt !== rebuiltAt)
            compared[index]!.push({
              ...base,
              status: 'not_compared',
              detail: `the live read model is at position ${liveAt}, the rebuild reached ${rebuiltAt}`,
            });
          else if (counts.onlyLive + counts.onlyRebuilt === 0) compared[index]!.push({ ...base, status: 'equal' });
          else compared[index]!.push({ ...base, status: 'differs', detail: samples.join('; ') });
        }
      },
    });
    const comparisons = compared.flat();
    return comparisons;
  } finally {
    await sql.query(`DROP SCHEMA IF EXISTS ${scratch} CASCADE`);
  }
}

/** Named after the live schema it checks (a hash: names are short), so a leftover says whose it was. */
export const scratchSchemaFor = (live: string, suffix: string): string =>
  `reveille_verify_${createHash('sha256').update(live).digest('hex').slice(0, 8)}_${suffix}`;

const quoted = (identifier: string): string => `"${identifier.replaceAll('"', '""')}"`;

async function compareTable(sql: SqlClient, live: string, scratch: string, table: string) {
  const [l, r] = [`${live}.${table}`, `${scratch}.${table}`];
  // Each table read once: whole rows counted per side by a digest of their text (small to group, however wide the
  // rows), so the multiset differences (EXCEPT ALL) come from one grouping; samples only where they differ. The
  // row's own text form, not its JSON: both tables come from the same migrations (the same columns in the same
  // order), and building JSON took twice the time of the digest (BENCHMARKS.md § audit).
  const sides = `SELECT md5(a::text) AS t, 1 AS l, 0 AS r FROM ${l} a UNION ALL SELECT md5(b::text), 0, 1 FROM ${r} b`;
  const { rows } = await sql.query<{ live: string; rebuilt: string; only_live: string; only_rebuilt: string }>(
    `SELECT coalesce(sum(l), 0) AS live, coalesce(sum(r), 0) AS rebuilt,
            coalesce(sum(greatest(l - r, 0)), 0) AS only_live, coalesce(sum(greatest(r - l, 0)), 0) AS only_rebuilt
       FROM (SELECT t, sum(l) AS l, sum(r) AS r FROM (${sides}) sides GROUP BY t) counted`,
  );
  const counts = {
    live: Number(rows[0]!.live),
    rebuilt: Number(rows[0]!.rebuilt),
    onlyLive: Number(rows[0]!.only_live),
    onlyRebuilt: Number(rows[0]!.only_rebuilt),
  };
  if (counts.onlyLive + counts.onlyRebuilt === 0) return { ...counts, samples: [] };
  const { rows: samples } = await sql.query<{ sample_live: string | null; sample_rebuilt: string | null }>(
    `WITH d AS (SELECT t, sum(l) AS l, sum(r) AS r FROM (${sides}) sides GROUP BY t)
     SELECT (SELECT left(min(to_jsonb(a)::text), 300) FROM ${l} a
              WHERE md5(a::text) IN (SELECT t FROM d WHERE l > r)) AS sample_live,
            (SELECT left(min(to_jsonb(b)::text), 300) FROM ${r} b
              WHERE md5(b::text) IN (SELECT t FROM d WHERE r > l)) AS sample_rebuilt`,
  );
  return {
    ...counts,
    samples: [
      ...(samples[0]!.sample_live ? [`only live: ${samples[0]!.sample_live}`] : []),
      ...(samples[0]!.sample_rebuilt ? [`only rebuilt: ${samples[0]!.sample_rebuilt}`] : []),
    ],
  };
}

/**
 * The same database seen through `schema` alone: each statement runs in a transaction that sets search_path
 * locally, so unqualified names (every projection's SQL) resolve to the scratch tables, never to live ones,
 * while other connections and statements keep theirs.
 */
function inSchema(sql: SqlClient, schema: string): SqlClient {
  const within = <T>(work: (tx: SqlExecutor) => Promise<T>) =>
    sql.transaction(async (tx) => {
      // Nor does a commit wait for a flush: nothing in the scratch schema outlives the check.
      await tx.query(`SELECT set_config('search_path', $1, true), set_config('synchronous_commit', 'off', true)`, [
        schema,
      ]);
      return work(tx);
    });
  return {
    kind: sql.kind,
    query: (query, values) => within((tx) => tx.query(query, values)),
    transaction: within,
    exec: (script) =>
      within(async (tx) => {
        if (tx.exec) await tx.exec(script);
        else await tx.query(script);
      }),
    close: async () => undefined,
  };
}
