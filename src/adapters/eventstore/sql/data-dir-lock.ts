import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** Another process holds the embedded store: PGlite has no locking of its own, and two writers corrupt it. */
export class EmbeddedStoreLocked extends Error {
  override readonly name = 'EmbeddedStoreLocked';
}

interface LockOwner {
  pid: number;
  host: string;
  command: string;
  startedAt: string;
  /** `/proc/<pid>/stat` start ticks and the boot id: a reused pid is not the holder. */
  procStart: string | null;
}

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

export const lockPath = (dataDir: string) => join(dataDir, 'reveille.lock');

/**
 * One process per embedded data directory (api.md "CLI"). The file is created with O_EXCL; a lock whose
 * process is gone (crash, SIGKILL) is stale and taken over. A clean exit removes it.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const path = lockPath(dataDir);
  const me: LockOwner = {
    pid: process.pid,
    host: hostname(),
    command: process.argv.slice(2).join(' ') || 'node',
    startedAt: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    procStart: procStart(process.pid),
  };
  const content = JSON.stringify(me);
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(path, content, { flag: 'wx', mode: 0o644 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw error;
    }
    const held = readOwner(path);
    if (held.owner && isAlive(held.owner)) throw lockedBy(dataDir, path, held.owner);
    // Stale: removed only if it is still the file judged stale, so a racing taker's fresh lock survives.
    if (readOwner(path).raw === held.raw) unlinkQuietly(path);
  }
  const release = () => {
    process.removeListener('exit', release);
    if (readOwner(path).raw === content) unlinkQuietly(path);
  };
  // process.exit() and the end of the event loop; a signal that kills the process leaves a stale lock.
  process.on('exit', release);
  return { path, release };
}

function lockedBy(dataDir: string, path: string, owner: LockOwner): EmbeddedStoreLocked {
  const where = owner.host === hostname() ? `pid ${owner.pid}` : `pid ${owner.pid} on ${owner.host}`;
  const gone = owner.host === hostname() ? '' : ` (if that process is gone, delete ${path})`;
  return new EmbeddedStoreLocked(
    `the embedded store in ${dataDir} is in use by "reveille ${owner.command}" (${where}, since ${owner.startedAt}): ` +
      `stop it first, or set DATABASE_URL so several processes share one PostgreSQL${gone}`,
  );
}

function readOwner(path: string): { raw: string | null; owner: LockOwner | null } {
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch {
    return { raw: null, owner: null };
  }
  try {
    const owner = JSON.parse(raw) as LockOwner;
    return { raw, owner: Number.isInteger(owner.pid) ? owner : null };
  } catch {
    // Half-written by a process killed while writing it: nobody holds it.
    return { raw, owner: null };
  }
}

/** Another host's process cannot be checked from here: it counts as alive. */
function isAlive(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const now = procStart(owner.pid);
  return owner.procStart === null || now === null || now === owner.procStart;
}

function procStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses); starttime is field 22.
    const ticks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return ticks ? `${boot}:${ticks}` : null;
  } catch {
    return null;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
