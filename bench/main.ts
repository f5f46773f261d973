/**
 * Benchmarks: `node dist/bench/main.js <name> [...args]` (or `npm run bench -- <name> ...`).
 * Each bench is an `(args) => Promise<void>`; add new ones to `benches`.
 */
import { appendBench } from './append.js';
import { hasBatchHeap, rerunWithBatchHeap } from '../src/adapters/cli/batch-heap.js';
import { auditBench } from './audit.js';
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
  if (!bench) {
    if (name !== undefined) process.stderr.write(`unknown bench "${name}"\n`);
    process.stderr.write(
      `usage: node dist/bench/main.js <bench> [...args]\nbenches:\n${Object.keys(benches)
        .map((b) => `  ${b}`)
        .join('\n')}\n`,
    );
    process.exitCode = 1;
    return;
  }
  // The audit bench times `projections rebuild` and `audit verify` as the CLI runs them: with its heap flags.
  if (name === 'audit' && !hasBatchHeap()) return void (process.exitCode = await rerunWithBatchHeap());
  await bench(args);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
