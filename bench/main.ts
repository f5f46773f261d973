/**
 * Benchmarks: `node dist/bench/main.js <name> [...args]` (or `npm run bench -- <name> ...`).
 * Each bench is an `(args) => Promise<void>` that checks its arguments with benchArgs before it starts anything
 * (a BenchUsage is one line, exit 2); add new ones to `benches`.
 */
import { hasBatchHeap, rerunWithBatchHeap } from '../src/adapters/cli/batch-heap.js';
import { BenchUsage } from './bench-args.js';

// Each bench loads on use: a refused command line (an unknown bench, a bad option) answers before the service's
// modules and every other benchmark's load (seconds on a slow VM, paid by every `reveille bench` refusal).
const benches: Record<string, (args: string[]) => Promise<void>> = {
  append: async (args) => (await import('./append.js')).appendBench(args),
  audit: async (args) => (await import('./audit.js')).auditBench(args),
  chaos: async (args) => (await import('./chaos/main.js')).chaosBench(args),
  deliver: async (args) => (await import('./deliver.js')).deliverBench(args),
  ingress: async (args) => (await import('./ingress.js')).ingressBench(args),
  manual: async (args) => (await import('./manual.js')).manualBench(args),
  poll: async (args) => (await import('./poll.js')).pollBench(args),
  schedules: async (args) => (await import('./schedules.js')).schedulesBench(args),
  suppress: async (args) => (await import('./suppress.js')).suppressBench(args),
};

async function main(argv: string[]): Promise<void> {
  const [name, ...args] = argv;
  const bench = name === undefined ? undefined : benches[name];
  if (!bench)
    throw new BenchUsage(
      `${name === undefined ? 'which benchmark?' : `unknown bench "${name}";`} benches: ${Object.keys(benches).join(', ')}`,
    );
  // The audit bench times `projections rebuild` and `audit verify` as the CLI runs them: with its heap flags.
  if (name === 'audit' && !hasBatchHeap()) return void (process.exitCode = await rerunWithBatchHeap());
  try {
    await bench(args);
  } catch (error) {
    if (error instanceof BenchUsage) error.message = `${name}: ${error.message}`;
    throw error;
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  // A wrong command line is one line and exit 2, as for every reveille command; anything else keeps its stack.
  if (error instanceof BenchUsage) {
    process.stderr.write(`reveille bench: ${error.message} (see reveille bench --help)\n`);
    process.exit(2);
  }
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
