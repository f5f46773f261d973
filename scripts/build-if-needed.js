// Compiles TypeScript when dist/ is missing or older than any source file, so `npm start` and
// `npx reveille` work straight after `npm ci`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildUi } from './build-ui.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** `anyFile`: the dashboard's page and style sheet count too, not only its TypeScript. */
function newestMtime(dir, anyFile = false) {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path, anyFile));
    else if (anyFile || (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')))
      newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function isFresh(stamp) {
  // tsc's incremental mode leaves unchanged outputs untouched, so freshness is kept in a stamp file
  const sources = Math.max(
    newestMtime(join(root, 'src')),
    newestMtime(join(root, 'bench')),
    newestMtime(join(root, 'ui'), true),
  );
  return existsSync(join(root, 'dist', 'src', 'main.js')) && existsSync(stamp) && statSync(stamp).mtimeMs >= sources;
}

const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** `force`: compile even when dist/ looks fresh (`npm run build`), and stamp it, so the next run does not compile again. */
export function ensureBuilt({ force = false } = {}) {
  const stamp = join(root, 'dist', '.build-stamp');
  if (!force && isFresh(stamp)) return;
  // Test files in parallel workers may all find dist/ stale: one compiles, the others wait, so no
  // process ever loads a file another compiler is rewriting. A lock older than 5 minutes is stale.
  const lock = join(root, 'dist', '.build-lock');
  mkdirSync(join(root, 'dist'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })?.mtimeMs > 300_000)
        rmSync(lock, { recursive: true, force: true });
      pause(200);
      if (!force && isFresh(stamp)) return;
    }
  }
  try {
    if (!force && isFresh(stamp)) return;
    // A source that does not compile writes nothing (noEmitOnError): dist/ keeps the last build that did.
    const why = existsSync(join(root, 'dist', 'src', 'main.js')) ? 'sources changed since the last build' : 'first run';
    if (!force) process.stderr.write(`reveille: compiling TypeScript (${why})…\n`);
    try {
      execFileSync(
        process.execPath,
        [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')],
        { stdio: 'inherit', cwd: root },
      );
    } catch {
      throw new Error('TypeScript did not compile (errors above); dist/ keeps the last build that did');
    }
    buildUi();
    writeFileSync(stamp, new Date().toISOString());
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    ensureBuilt({ force: process.argv.includes('--force') });
  } catch (error) {
    process.stderr.write(`reveille: ${error.message}\n`);
    process.exit(1);
  }
}
