import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory of Reveille's own package.json above this file: `src/…` under ts-jest, `dist/src/…` when built. */
export function packageRoot(): string | null {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const path = join(dir, 'package.json');
    if (existsSync(path) && (JSON.parse(readFileSync(path, 'utf8')) as { name?: string }).name === 'reveille')
      return dir;
    if (dirname(dir) === dir) return null;
  }
}

export function packageVersion(): string {
  const root = packageRoot();
  if (root === null) return 'unknown';
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}
