import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedStoreLocked, lockDataDir, lockPath } from './data-dir-lock.js';

const freshDir = () => mkdtempSync(join(tmpdir(), 'reveille-lock-'));
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid;
const owner = (pid: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    pid,
    host: hostname(),
    command: 'serve',
    startedAt: '2026-01-01T00:00:00.000Z',
    procStart: null,
    ...extra,
  });

describe('the embedded data directory lock (api.md "CLI")', () => {
  it('refuses a second holder while the first lives, naming its pid, and frees the directory on release', () => {
    const dir = freshDir();
    const lock = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(EmbeddedStoreLocked);
    expect(() => lockDataDir(dir)).toThrow(`(pid ${process.pid}, since `);
    lock.release();
    expect(existsSync(lockPath(dir))).toBe(false);
    lockDataDir(dir).release();
  });

  it('takes over a lock whose process is gone, or whose pid now belongs to another process', () => {
    const dir = freshDir();
    writeFileSync(lockPath(dir), owner(deadPid()));
    const taken = lockDataDir(dir);
    expect(JSON.parse(readFileSync(lockPath(dir), 'utf8')).pid).toBe(process.pid);
    taken.release();

    // Our own pid, recorded with another start: the pid was reused after the holder died
    writeFileSync(lockPath(dir), owner(process.pid, { procStart: 'another-boot:1' }));
    const reused = lockDataDir(dir);
    reused.release();
  });

  it('takes over a half-written lock, and never removes a lock that is not its own', () => {
    const dir = freshDir();
    writeFileSync(lockPath(dir), '{"pid":');
    const lock = lockDataDir(dir);
    const someoneElse = owner(1);
    writeFileSync(lockPath(dir), someoneElse);
    lock.release();
    expect(readFileSync(lockPath(dir), 'utf8')).toBe(someoneElse);
  });

  it('counts a holder on another host as alive and says how to clear it', () => {
    const dir = freshDir();
    writeFileSync(lockPath(dir), owner(deadPid(), { host: 'elsewhere' }));
    expect(() => lockDataDir(dir)).toThrow(/on elsewhere.*if that process is gone, delete .*reveille\.lock/);
  });
});
