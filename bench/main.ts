/**
 * Benchmarks: `node dist/bench/main.js <name> [...args]` (or `npm run bench -- <name> ...`).
 * Each bench is an `(args) => Promise<void>` that checks its arguments with benchArgs before it starts anything
 * (a BenchUsage is one line, exit 2); add new ones to `benches`.
 */
import { appendBench } from './append.js';
import { hasBatchHeap, rerunWithBatchHeap } from '../src/adapters/cli/batch-heap.js';
import { auditBench } from './audit.js';
import { BenchUsage } from './bench-args.js';
import { chaosBench } from './chaos/main.js';
import { deliverBench } from './deliver.js';
import { ingressBench } from './ingress.js';
import { manualBench } from './manual.js';
import { pollBench } from './poll.js';
import { schedulesBench } from './schedules.js';
import { suppressBench } from './suppress.js';

const benches: Record<string, (args: string[]) => Promise<void>> = {
  append: appendBench,
  audit: auditBench,
  chaos: chaosBench,
  deliver: deliverBench,
  ingress: ingressBench,
  manual: manualBench,
  poll: pollBench,
  schedules: schedulesBench,
  suppress: suppressBench,
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
