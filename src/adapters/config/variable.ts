/** The message names the variable and what it accepts. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export type Env = Readonly<Record<string, string | undefined>>;

/** `accepts` and `unset` are the README's words: its table is checked against them, so it cannot drift. */
export interface Variable<T> {
  readonly name: string;
  readonly accepts: string;
  readonly unset: string;
  readonly fallback: T;
  /** Connection strings carry passwords: a refusal does not repeat the value. */
  readonly secret?: boolean;
  parse(raw: string): T | undefined;
}

/** Empty counts as unset, as container and compose files leave a variable they blank. */
export function read<T>(variable: Variable<T>, env: Env): { value: T } | { refusal: string } {
  const raw = env[variable.name];
  if (raw === undefined || raw === '') return { value: variable.fallback };
  const value = variable.parse(raw);
  if (value !== undefined) return { value };
  const shown = variable.secret ? ' (the value is not shown: it may hold credentials)' : `, not "${raw}"`;
  return { refusal: `${variable.name} must be ${variable.accepts}${shown}` };
}

export function integer(name: string, range: { min: number; max?: number }, fallback: number): Variable<number> {
  const { min, max = Number.MAX_SAFE_INTEGER } = range;
  return {
    name,
    accepts: integerRange(min, range.max),
    unset: `\`${fallback}\``,
    fallback,
    parse: (raw) => {
      const value = Number(raw);
      return Number.isSafeInteger(value) && value >= min && value <= max ? value : undefined;
    },
  };
}

function integerRange(min: number, max: number | undefined): string {
  if (max !== undefined) return `an integer from ${min} to ${max}`;
  return min === 1 ? 'a positive integer' : `an integer of at least ${min}`;
}

/** Unset is null, for the section to decide from other settings. */
export function oneOf<const W extends string>(name: string, words: readonly W[], unset: string): Variable<W | null> {
  const quoted = words.map((word) => `"${word}"`);
  return {
    name,
    accepts: `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`,
    unset,
    fallback: null,
    parse: (raw) => words.find((word) => word === raw),
  };
}

export function text<F extends string | null>(
  name: string,
  spec: { accepts: string; unset: string; fallback: F; valid?: (raw: string) => boolean; secret?: boolean },
): Variable<string | F> {
  const { valid = () => true, ...rest } = spec;
  return { name, ...rest, parse: (raw) => (valid(raw) ? raw : undefined) };
}
