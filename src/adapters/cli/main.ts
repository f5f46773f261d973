import 'reflect-metadata';
import { parseArgs, UsageError } from './args.js';
import { migrate, rebuildProjections, serve, token } from './commands.js';
import type { Composition } from './composition.js';
import { scheduler } from './scheduler.js';
import { auditVerifyCommand } from './audit-verify.js';

const USAGE = `usage: reveille <command>
  serve                               run the HTTP service (default)
  migrate                             apply database migrations
  token --tenant T --scope "…" [--ttl 300] [--subject S]   mint a development token
  projections rebuild [--name N]      rebuild read models from position 0
  audit verify [--from P] [--json]    check the log's hash chains and invariants and the read models (exit 1 on a violation)
  scheduler [--once] [--claim none] [--batch-size N]   run a schedule materializer alone (--once: decide what is due, exit)
`;

export async function runCli(argv: string[], composition: Composition): Promise<void> {
  const { positional, options } = parseArgs(argv);
  const [command = 'serve', sub] = positional;
  try {
    if (options.help) return void process.stdout.write(USAGE);
    if (command === 'serve') return await serve(composition);
    if (command === 'migrate') return await migrate(composition);
    if (command === 'token') return await token(options);
    if (command === 'projections' && sub === 'rebuild') return await rebuildProjections(options, composition);
    if (command === 'audit' && sub === 'verify') return await auditVerifyCommand(options, composition);
    if (command === 'scheduler') return await scheduler(options, composition);
    throw new UsageError(`unknown command "${positional.join(' ')}"`);
  } catch (error) {
    if (error instanceof UsageError || (error as Error).name === 'ConfigError') {
      process.stderr.write(`reveille: ${(error as Error).message}\n${error instanceof UsageError ? USAGE : ''}`);
      process.exit(2);
    }
    throw error;
  }
}
