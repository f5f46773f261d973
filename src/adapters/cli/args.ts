/** Parsed `--name value` / `--flag` options. */
export type Options = Record<string, string | true>;

/**
 * Minimal `--name value` / `--flag` parsing; the CLI has few options and no dependency is worth it. Every option
 * takes one value: one given twice is listed in `repeated` (refused by the caller, never "the last one wins").
 */
export function parseArgs(argv: string[]): {
  positional: string[];
  options: Record<string, string | true>;
  repeated: string[];
} {
  const positional: string[] = [];
  const options: Record<string, string | true> = {};
  const repeated: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    if (Object.hasOwn(options, name) && !repeated.includes(name)) repeated.push(name);
    if (inline !== undefined) options[name] = inline;
    else if (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('--')) options[name] = argv[++i]!;
    else options[name] = true;
  }
  return { positional, options, repeated };
}

export function stringOption(options: Record<string, string | true>, name: string): string | undefined {
  const value = options[name];
  if (value === true) throw new UsageError(`--${name} needs a value`);
  return value;
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
}
