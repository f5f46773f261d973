import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from './args.js';

/** The benchmarks are compiled beside the service (dist/bench next to dist/src), from bench/ in a checkout. */
const BENCH_MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'bench', 'main.js');

/**
 * `reveille bench <name> [...]` is `npm run bench -- <name> [...]`: the benchmark runs in a process of its own (it
 * starts services and load generators and sets its own heap flags), and its arguments are its own, not the CLI's.
 */
export async function benchCommand(args: readonly string[]): Promise<void> {
  if (!existsSync(BENCH_MAIN)) throw new UsageError('the benchmarks are not in this build; run them from a checkout');
  const child = spawn(process.execPath, [BENCH_MAIN, ...args], { stdio: 'inherit' });
  process.exitCode = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}
