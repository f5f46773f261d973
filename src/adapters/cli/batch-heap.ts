import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/**
 * `projections rebuild` and `audit verify` fold the whole log: parsed rows, statements and hashes by the gigabyte,
 * each dropped a page later. Under V8's default young generation (16 MB semi-spaces) a third of their Node time
 * went to scavenges; with 64 MB semi-spaces their Node CPU fell by a quarter and a rebuild of a million events
 * took ≈ 12 % less time (BENCHMARKS.md § audit). `serve` keeps the default: its memory is the deployment's.
 */
export const BATCH_HEAP_FLAGS: readonly string[] = ['--max-semi-space-size=64'];

/** Whether node was started with a young generation chosen already: these flags, or the user's own on its command line. */
export function hasBatchHeap(execArgv = process.execArgv): boolean {
  return execArgv.some((flag) => /^--max-semi-space-size(=|$)/.test(flag));
}

/**
 * The same command line again, in a child Node with BATCH_HEAP_FLAGS, sharing this terminal; resolves to its exit
 * code. V8 sizes the young generation when the process starts, so a running process cannot change its own.
 */
export function rerunWithBatchHeap(): Promise<number> {
  const child = spawn(process.execPath, [...process.execArgv, ...BATCH_HEAP_FLAGS, ...process.argv.slice(1)], {
    stdio: 'inherit',
  });
  // Ctrl-C reaches the child from the terminal too; a signal sent to this process alone is passed on.
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  signals.forEach((signal) => process.on(signal, forward));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      signals.forEach((s) => process.off(s, forward));
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
}
