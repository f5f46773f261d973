/** RFC 6901 JSON pointers as used in definitions (`/resource/id`): non-empty, starting with `/`. */
export function isJsonPointer(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('/') && value.length <= 1024 && !/~[^01]|~$/.test(value);
}

export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function pointerTo(base: string, token: string | number): string {
  return `${base}/${escapePointerToken(String(token))}`;
}

export type PointerLookup = { found: true; value: unknown } | { found: false };

/** Follows own members only, so a payload can never reach `__proto__` or `constructor` through a pointer. */
export function resolvePointer(document: unknown, pointer: string): PointerLookup {
  if (pointer === '') return { found: true, value: document };
  if (!isJsonPointer(pointer)) return { found: false };
  let current: unknown = document;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) >= current.length) return { found: false };
      current = current[Number(token)];
    } else if (
      typeof current === 'object' &&
      current !== null &&
      Object.prototype.hasOwnProperty.call(current, token)
    ) {
      current = (current as Record<string, unknown>)[token];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: current };
}
