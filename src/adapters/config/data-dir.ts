import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError } from './variable.js';

/**
 * REVEILLE_DATA_DIR made to exist, one missing level at a time. A recursive mkdirSync spins forever where a
 * file system answers ENOENT for a directory it will never create (procfs: /proc/nope) and reports a file on the
 * path as a raw ENOTDIR or EEXIST; here every such case is a ConfigError naming the variable (one line, exit 2).
 */
export function ensureDataDir(dir: string): void {
  const refused = (why: string) => new ConfigError(`REVEILLE_DATA_DIR=${dir} cannot be used: ${why}`);
  const missing: string[] = [];
  for (let at = resolve(dir); ;) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(at).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') throw refused(code === 'ENOTDIR' ? `a part of ${at} is a file` : `${at}: ${code}`);
      missing.unshift(at);
      if (dirname(at) === at) break;
      at = dirname(at);
      continue;
    }
    if (!isDirectory) throw refused(`${at} is not a directory`);
    break;
  }
  for (const path of missing) {
    try {
      mkdirSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Made meanwhile by another process: fine when it is a directory.
      if (code === 'EEXIST' && statSync(path).isDirectory()) continue;
      throw refused(`cannot create ${path} (${code ?? (error as Error).message})`);
    }
  }
}
