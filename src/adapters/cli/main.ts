import 'reflect-metadata';
import { parseArgs, UsageError } from './args.js';
import { hasBatchHeap, rerunWithBatchHeap } from './batch-heap.js';
import type { Composition } from './composition.js';
import { exitCodeFor } from './exit-codes.js';
import { type CommandUsage, commandHelp, COMMANDS, groupHelp, overview, subcommandsOf } from './usage.js';
import { packageVersion } from './version.js';

type Options = Record<string, string | true>;

const SHORT: Record<string, string> = { '-h': '--help', '-f': '--file' };
type Run = (options: Options, composition: Composition, positional: string[]) => Promise<void>;

// Each command loads its own modules: `token`, `apply` and `why` talk HTTP or sign a JWT and start at once,
// without the application, the stores and Nest that `serve` needs.
const RUN: Record<string, Run> = {
  serve: async (_, composition) => (await import('./commands.js')).serve(composition),
  migrate: async (_, composition) => (await import('./commands.js')).migrate(composition),
  token: async (options) => (await import('./token.js')).token(options),
  apply: async (options) => (await import('./apply.js')).applyCommand(options),
  why: async (options, _, positional) => (await import('./why.js')).whyCommand(options, positional),
  'projections rebuild': async (options, composition) =>
    (await import('./commands.js')).rebuildProjections(options, composition),
  'audit verify': async (options, composition) =>
    (await import('./audit-verify.js')).auditVerifyCommand(options, composition),
  scheduler: async (options, composition) => (await import('./scheduler.js')).scheduler(options, composition),
  // Reached without a benchmark's name only: the benchmarks' own usage lists them.
  bench: async (_, __, positional) => (await import('./bench.js')).benchCommand(positional),
};

/** They fold the whole log: run with a larger young generation (batch-heap.ts). */
const BATCH_COMMANDS = new Set(['projections rebuild', 'audit verify']);

/** No command starts nothing (api.md "CLI"): only `serve` runs a server, and only when asked. */
export async function runCli(argv: string[], composition: Composition): Promise<void> {
  // `reveille help [command …]` is `reveille [command …] --help`, as in git and npm.
  if (argv[0] === 'help') argv = [...argv.slice(1), '--help'];
  // A benchmark's options are its own (`bench manual --seconds 8`): handed over unparsed, except a first --help.
  if (argv[0] === 'bench' && !['--help', '-h'].includes(argv[1] ?? '--help'))
    return (await import('./bench.js')).benchCommand(argv.slice(1)).catch((error: unknown) => {
      if (!(error instanceof UsageError)) throw error;
      process.stderr.write(`reveille bench: ${error.message}\n`);
      process.exit(2);
    });
  const { positional, options, repeated } = parseArgs(argv.map((arg) => SHORT[arg] ?? arg));
  let command: CommandUsage | undefined;
  try {
    if (options.version && positional.length === 0) return void process.stdout.write(`${packageVersion()}\n`);
    if (positional.length === 0) {
      if (options.help) return void process.stdout.write(overview());
      process.stderr.write(overview());
      return process.exit(2);
    }
    // A command group (`audit`, `projections`) answers --help with its subcommands (api.md: every command does).
    if (options.help && positional.length === 1 && subcommandsOf(positional[0]!).length > 0)
      return void process.stdout.write(groupHelp(positional[0]!));
    command = findCommand(positional);
    if (options.help) return void process.stdout.write(commandHelp(command));
    const unknown = Object.keys(options).filter((name) => !command!.options.includes(name));
    if (unknown.length > 0) throw new UsageError(`unknown option --${unknown[0]}`);
    if (repeated.length > 0) throw new UsageError(`--${repeated[0]} is given more than once; it takes one value`);
    if (BATCH_COMMANDS.has(command.name) && !hasBatchHeap())
      return void (process.exitCode = await rerunWithBatchHeap());
    await RUN[command.name]!(options, composition, positional.slice(command.name.split(' ').length));
  } catch (error) {
    const code = exitCodeFor(error);
    if (code === undefined) throw error;
    const prefix = command ? `reveille ${command.name}` : 'reveille';
    const hint = error instanceof UsageError ? ` (see ${command ? prefix : 'reveille'} --help)` : '';
    process.stderr.write(`${prefix}: ${(error as Error).message}${hint}\n`);
    process.exit(code);
  }
}

function findCommand(positional: string[]): CommandUsage {
  const typed = positional.join(' ');
  // A command that takes arguments (`why <occurrenceId>`) is named by its first word alone.
  const command =
    COMMANDS.find((c) => typed === c.name) ?? COMMANDS.find((c) => c.takesArguments && positional[0] === c.name);
  if (command) return command;
  const group = subcommandsOf(positional[0]!);
  if (group.length > 0 && positional.length === 1)
    throw new UsageError(`"${typed}" needs a subcommand: ${group.map((c) => c.name).join(', ')}`);
  throw new UsageError(`unknown command "${typed}"; commands: ${COMMANDS.map((c) => c.name).join(', ')}`);
}

/** Another process listens on PORT: something to act on, not a bug. */
