/** The depth a JSON body may reach unless configured otherwise (WH-1, SEC-4). */
export const DEFAULT_MAX_JSON_DEPTH = 64;

export type JsonBoundsViolation = { pointer: string; message: string };

/**
 * WH-1 / SEC-4: parsed JSON that the service refuses before storing, hashing or fingerprinting it —
 * nesting deeper than `maxDepth`, non-finite numbers (JSON.parse reads `1e999` as Infinity), and
 * U+0000 or unpaired surrogates in keys or strings (PostgreSQL's jsonb and text reject both).
 * Iterative, so a body nested 100,000 deep is refused without exhausting the stack.
 */
export function checkJsonBounds(value: unknown, maxDepth = DEFAULT_MAX_JSON_DEPTH): JsonBoundsViolation | null {
  const stack: { value: unknown; path: readonly string[]; depth: number }[] = [{ value, path: [], depth: 0 }];
  while (stack.length > 0) {
    const { value: item, path, depth } = stack.pop()!;
    if (typeof item === 'number' && !Number.isFinite(item))
      return { pointer: pointerOf(path), message: 'numbers must be finite' };
    if (typeof item === 'string') {
      const bad = badString(item);
      if (bad) return { pointer: pointerOf(path), message: bad };
      continue;
    }
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= maxDepth)
      return { pointer: pointerOf(path), message: `JSON nesting deeper than ${maxDepth} levels is not accepted` };
    if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--)
        stack.push({ value: item[i] as unknown, path: [...path, String(i)], depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(item);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      const bad = badString(key);
      if (bad) return { pointer: pointerOf([...path, key]), message: `member name: ${bad}` };
      stack.push({ value: (item as Record<string, unknown>)[key], path: [...path, key], depth: depth + 1 });
    }
  }
  return null;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** U+0000 and lone surrogates cannot be stored; everything else is data. */
export function badString(text: string): string | null {
  if (text.includes('\u0000')) return 'strings must not contain U+0000';
  if (LONE_SURROGATE.test(text)) return 'strings must not contain unpaired surrogates';
  return null;
}

function pointerOf(path: readonly string[]): string {
  // The pointer of a violation 100,000 levels down would itself be a hostile payload: keep it short.
  const shown = path.length > 16 ? path.slice(0, 16) : path;
  const text = shown.map((part) => `/${part.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
  return path.length > 16 ? `${text}/…` : text;
}

const CONTROL = /[\u0000-\u001f\u007f]/;

/** Ids and identity claims are names, never text: control characters and half surrogate pairs are refused. */
export function isPrintableName(text: string): boolean {
  return !CONTROL.test(text) && !LONE_SURROGATE.test(text);
}
