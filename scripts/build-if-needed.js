// Compiles TypeScript when dist/ is missing or older than any source file, so `npm start` and
// `npx reveille` work straight after `npm ci`.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function newestMtime(dir) {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

export function ensureBuilt() {
  // tsc's incremental mode leaves unchanged outputs untouched, so freshness is kept in a stamp file
  const stamp = join(root, 'dist', '.build-stamp');
  const sources = Math.max(newestMtime(join(root, 'src')), newestMtime(join(root, 'bench')));
  if (existsSync(join(root, 'dist', 'src', 'main.js')) && existsSync(stamp) && statSync(stamp).mtimeMs >= sources) return;
  process.stderr.write('reveille: compiling TypeScript (first run)…\n');
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
  writeFileSync(stamp, new Date().toISOString());
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) ensureBuilt();
