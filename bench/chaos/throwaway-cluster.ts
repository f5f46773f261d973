import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A PostgreSQL cluster of its own, so the harness can stop and start it under load without touching others. */
export class ThrowawayCluster {
  private constructor(
    private readonly bin: string,
    private readonly dir: string,
    readonly port: number,
  ) {}

  static create(port: number): ThrowawayCluster {
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
    if (versions.length === 0) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
    const dir = mkdtempSync(join(tmpdir(), 'reveille-chaos-pg-'));
    const cluster = new ThrowawayCluster(`/usr/lib/postgresql/${versions[0]}/bin`, dir, port);
    // PostgreSQL refuses to run as root: the cluster belongs to the postgres user then.
    if (process.getuid?.() === 0) chownSync(dir, uid('postgres'), gid('postgres'));
    cluster.run('initdb', ['-D', join(dir, 'data'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    return cluster;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  start(): void {
    const options = `-p ${this.port} -c listen_addresses=127.0.0.1 -k ${this.dir} -c max_connections=200`;
    this.run('pg_ctl', ['-D', join(this.dir, 'data'), '-o', options, '-l', join(this.dir, 'log'), '-w', 'start']);
  }

  /** `fast` rolls back open transactions and shuts down cleanly; `immediate` is a crash (recovery at start). */
  stop(mode: 'fast' | 'immediate'): void {
    this.run('pg_ctl', ['-D', join(this.dir, 'data'), '-m', mode, '-w', 'stop']);
  }

  destroy(): void {
    try {
      this.stop('immediate');
    } catch {
      /* already stopped */
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private run(tool: string, args: string[]): void {
    const command = join(this.bin, tool);
    if (process.getuid?.() === 0)
      execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: 'pipe' });
    else execFileSync(command, args, { stdio: 'pipe' });
  }
}

const uid = (user: string) => Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
const gid = (user: string) => Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
