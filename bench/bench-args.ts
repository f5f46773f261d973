/** A benchmark's command line that is wrong: one line and exit code 2 (bench/main.ts), as every reveille command. */
export class BenchUsage extends Error {
  override readonly name = 'BenchUsage';
}

interface NumberRule {
  min?: number;
  max?: number;
  integer?: boolean;
}

/**
 * A benchmark's `--name value` options and `--flag`s, checked before anything starts: an option it does not know,
 * one given twice, a missing value, or a value that is no number where one is needed is refused (BenchUsage).
 */
export function benchArgs(
  bench: string,
  args: readonly string[],
  known: { values: readonly string[]; flags?: readonly string[]; repeatable?: readonly string[] },
) {
  const flags = known.flags ?? [];
  const values = new Map<string, string[]>();
  const set = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (flags.includes(arg)) {
      if (set.has(arg)) throw new BenchUsage(`${arg} is given twice`);
      set.add(arg);
      continue;
    }
    if (!known.values.includes(arg))
      throw new BenchUsage(
        `unknown ${arg.startsWith('-') ? 'option' : 'argument'} "${arg}"; ${bench} takes ${[...known.values, ...flags].join(' ') || 'no options'}`,
      );
    const value = args[i + 1];
    if (value === undefined || value.startsWith('--')) throw new BenchUsage(`${arg} needs a value`);
    if (values.has(arg) && !known.repeatable?.includes(arg)) throw new BenchUsage(`${arg} is given twice`);
    values.set(arg, [...(values.get(arg) ?? []), value]);
    i++;
  }
  const text = (name: string): string | undefined => values.get(name)?.[0];
  const number = (name: string, fallback: number, rule: NumberRule = {}): number => {
    const given = text(name);
    if (given === undefined) return fallback;
    const n = Number(given);
    const ok =
      given.trim() !== '' &&
      Number.isFinite(n) &&
      (!rule.integer || Number.isInteger(n)) &&
      (rule.min === undefined || n >= rule.min) &&
      (rule.max === undefined || n <= rule.max);
    if (!ok) throw new BenchUsage(`${name} needs ${describe(rule)}, not "${given}"`);
    return n;
  };
  return {
    number,
    text,
    all: (name: string): string[] => values.get(name) ?? [],
    flag: (name: string): boolean => set.has(name),
  };
}

function describe(rule: NumberRule): string {
  const what = rule.integer ? 'a whole number' : 'a number';
  if (rule.min !== undefined && rule.max !== undefined) return `${what} from ${rule.min} to ${rule.max}`;
  if (rule.min !== undefined) return `${what} of at least ${rule.min}`;
  if (rule.max !== undefined) return `${what} of at most ${rule.max}`;
  return what;
}
