import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PgliteSqlClient } from '../../src/adapters/eventstore/sql/pglite-sql-client.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pgliteVersion = (
  JSON.parse(readFileSync(join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }
).version;
/** A freshly initialised, empty PGlite cluster, shared by every suite of every run on this machine and PGlite version. */
const SNAPSHOT = join(tmpdir(), `reveille-test-pglite-${pgliteVersion}-initdb.tar`);

/**
 * A fresh in-memory embedded store. PGlite's initdb takes 2–3 s and loading a snapshot of its result under 1 s,
 * so the first suite on a machine writes the snapshot and every later store starts from it: the same empty
 * cluster, one process each, nothing shared at run time.
 */
export async function freshEmbeddedStore(): Promise<PgliteSqlClient> {
  if (existsSync(SNAPSHOT)) return PgliteSqlClient.open(undefined, undefined, new Blob([readFileSync(SNAPSHOT)]));
  const store = await PgliteSqlClient.open();
  const partial = `${SNAPSHOT}.${process.pid}`;
  writeFileSync(partial, Buffer.from(await (await store.snapshot()).arrayBuffer()));
  // Atomic: a racing suite reads either no snapshot or a whole one.
  renameSync(partial, SNAPSHOT);
  return store;
}
