import { isJsonPointer, pointerTo } from './json-pointer.js';
import type { FieldError } from './result.js';

export type Raw = Record<string, unknown>;

export function isRecord(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Each reader reports into one error list, so `undefined` means "invalid, already reported". */
export class FieldReader {
  readonly errors: FieldError[] = [];

  fail(pointer: string, message: string): undefined {
    this.errors.push({ pointer, message });
    return undefined;
  }

  /** Refuses unknown members so a misspelt policy never silently falls back to a default. */
  onlyKnown(raw: Raw, base: string, known: readonly string[]): void {
    for (const key of Object.keys(raw)) {
      if (!known.includes(key)) this.fail(pointerTo(base, key), `unknown member "${key}"`);
    }
  }

  object(raw: Raw, base: string, key: string, required: boolean): Raw | null | undefined {
    const value = raw[key];
    if (value === undefined || value === null)
      return required ? this.fail(pointerTo(base, key), `${key} is required`) : null;
    return isRecord(value) ? value : this.fail(pointerTo(base, key), `${key} must be an object`);
  }

  string(
    raw: Raw,
    base: string,
    key: string,
    opts: { fallback?: string | null; max?: number } = {},
  ): string | null | undefined {
    const value = raw[key];
    const at = pointerTo(base, key);
    if (value === undefined || value === null)
      return opts.fallback !== undefined ? opts.fallback : this.fail(at, `${key} is required`);
    if (typeof value !== 'string' || value.length === 0) return this.fail(at, `${key} must be a non-empty string`);
    if (value.length > (opts.max ?? 256)) return this.fail(at, `${key} is longer than ${opts.max ?? 256} characters`);
    return value;
  }

  oneOf<T extends string>(raw: Raw, base: string, key: string, allowed: readonly T[], fallback?: T): T | undefined {
    const value = raw[key] ?? fallback;
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
    return this.fail(pointerTo(base, key), `${key} must be one of ${allowed.map((a) => `"${a}"`).join(', ')}`);
  }

  integer(
    raw: Raw,
    base: string,
    key: string,
    range: { min: number; max: number; fallback?: number },
  ): number | undefined {
    const value = raw[key] ?? range.fallback;
    if (Number.isInteger(value) && (value as number) >= range.min && (value as number) <= range.max)
      return value as number;
    const what = value === undefined ? `${key} is required: ` : '';
    return this.fail(pointerTo(base, key), `${what}${key} must be an integer from ${range.min} to ${range.max}`);
  }

  /** A finite number, fractions allowed (seconds a test may want to be short). */
  number(
    raw: Raw,
    base: string,
    key: string,
    range: { min: number; max: number; fallback?: number },
  ): number | undefined {
    const value = raw[key] ?? range.fallback;
    if (typeof value === 'number' && Number.isFinite(value) && value >= range.min && value <= range.max) return value;
    const what = value === undefined ? `${key} is required: ` : '';
    return this.fail(pointerTo(base, key), `${what}${key} must be a number from ${range.min} to ${range.max}`);
  }

  boolean(raw: Raw, base: string, key: string, fallback?: boolean): boolean | undefined {
    const value = raw[key] ?? fallback;
    return typeof value === 'boolean' ? value : this.fail(pointerTo(base, key), `${key} must be true or false`);
  }

  /** `root`: "" (RFC 6901: the whole document) is accepted too. */
  pointer(raw: Raw, base: string, key: string, required: boolean, root = false): string | null | undefined {
    const value = raw[key];
    if (value === undefined || value === null)
      return required ? this.fail(pointerTo(base, key), `${key} is required`) : null;
    if (root && value === '') return value;
    return isJsonPointer(value)
      ? value
      : this.fail(
          pointerTo(base, key),
          root
            ? `${key} must be "" or a JSON pointer starting with "/"`
            : `${key} must be a JSON pointer starting with "/"`,
        );
  }

  array<T>(
    raw: Raw,
    base: string,
    key: string,
    check: (item: unknown, at: string) => T | undefined,
    opts: { max: number; fallback?: T[] },
  ): T[] | undefined {
    const value = raw[key] ?? opts.fallback;
    const at = pointerTo(base, key);
    if (!Array.isArray(value)) return this.fail(at, `${key} must be an array`);
    if (value.length > opts.max) return this.fail(at, `${key} holds at most ${opts.max} items`);
    const items = value.map((item, index) => check(item, pointerTo(at, index)));
    return items.every((item) => item !== undefined) ? (items as T[]) : undefined;
  }
}
