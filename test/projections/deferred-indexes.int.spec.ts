import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/adapters/config/config.js';
import { openInfrastructure } from '../../src/adapters/eventstore/infrastructure.js';
import { allMigrations } from '../../src/app.module.js';
import { projections } from '../../src/projections/index.js';
import {
  deferReadIndexes,
  restoreDeferredIndexes,
  withReadIndexesDeferred,
} from '../../src/projections/runner/deferred-indexes.js';
import { type DbKind, openHarness, type ProjectionHarness } from './harness.js';

const READ_INDEXES = projections.flatMap((p) => p.readIndexes ?? []).sort();

/**
 * OP-3: `projections rebuild` drops the indexes only queries use while it writes every row, and builds them once
 * afterwards; a rebuild that dies in between leaves them recorded, and the next process to open the store builds them.
 */
describe.each<DbKind>(['postgres', 'pglite'])('OP-3 read indexes deferred by a rebuild (%s)', (kind) => {
  let h: ProjectionHarness;
  const definitions = async () => {
    const { rows } = await h.sql.query<{ name: string; definition: string }>(
      `SELECT indexname AS name, indexdef AS definition FROM pg_indexes
        WHERE schemaname = current_schema() AND indexname = ANY($1::text[]) ORDER BY indexname`,
      [READ_INDEXES],
    );
    return rows;
  };
  const recorded = async () =>
    (await h.sql.query<{ name: string }>('SELECT name FROM deferred_read_indexes ORDER BY name')).rows.map(
      (r) => r.name,
    );

  beforeAll(async () => {
    h = await openHarness(kind, projections);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('drops each read index with its definition recorded, and builds it again exactly as it was', async () => {
    const before = await definitions();
    expect(before.map((d) => d.name)).toEqual(READ_INDEXES);
    expect((await deferReadIndexes(h.sql, projections)).sort()).toEqual(READ_INDEXES);
    expect(await definitions()).toEqual([]);
    expect(await recorded()).toEqual(READ_INDEXES);
    // A second deferral finds nothing to drop and keeps the first definitions.
    expect(await deferReadIndexes(h.sql, projections)).toEqual([]);

    expect((await restoreDeferredIndexes(h.sql)).sort()).toEqual(READ_INDEXES);
    expect(await definitions()).toEqual(before);
    expect(await recorded()).toEqual([]);
    expect(await restoreDeferredIndexes(h.sql)).toEqual([]);
  });

  it('two processes restoring at once build each index once, without an error', async () => {
    const before = await definitions();
    await deferReadIndexes(h.sql, projections);
    const built = await Promise.all([restoreDeferredIndexes(h.sql), restoreDeferredIndexes(h.sql)]);
    expect(await definitions()).toEqual(before);
    expect(await recorded()).toEqual([]);
    expect(built.flat().sort()).toEqual(READ_INDEXES);
  });

  it('around a rebuild: absent while it writes, built after it, and after a failing one too (its error thrown)', async () => {
    const before = await definitions();
    const built: string[] = [];
    let during: unknown[] = [];
    await withReadIndexesDeferred(
      h.sql,
      projections,
      async () => void (during = await definitions()),
      (name) => built.push(name),
    );
    expect(during).toEqual([]);
    expect(built.sort()).toEqual(READ_INDEXES);
    expect(await definitions()).toEqual(before);

    const failing = withReadIndexesDeferred(h.sql, projections, async () => {
      throw new Error('the rebuild failed');
    });
    await expect(failing).rejects.toThrow('the rebuild failed');
    expect(await definitions()).toEqual(before);
    expect(await recorded()).toEqual([]);
  });

  it('a rebuild that died after dropping them: the next process opening the store builds them again', async () => {
    const before = await definitions();
    await deferReadIndexes(h.sql, projections);
    const config = loadConfig({
      NODE_ENV: 'test',
      REVEILLE_AUTH: 'dev',
      REVEILLE_DATA_DIR: mkdtempSync(join(tmpdir(), 'reveille-deferred-')),
    });
    // The harness's client as the store's: openInfrastructure runs the migrations, then what they left deferred.
    await openInfrastructure(config, allMigrations(), { sql: h.sql });
    expect(await definitions()).toEqual(before);
    expect(await recorded()).toEqual([]);
  });
});
