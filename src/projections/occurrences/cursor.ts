/** Keyset pagination: a cursor is the sort key of the last row served, opaque to clients (base64url JSON). */
export class InvalidCursor extends Error {
  override readonly name = 'InvalidCursor';
  constructor() {
    super('the cursor is not one this list issued');
  }
}

/** Tagged by list so a cursor of one list is refused by another instead of silently misread. */
export function encodeCursor(list: string, key: readonly string[]): string {
  return Buffer.from(JSON.stringify([list, ...key]), 'utf8').toString('base64url');
}

export function decodeCursor(list: string, cursor: string, arity: number): string[] {
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]{1,2048}$/.test(cursor)) throw new InvalidCursor();
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== arity + 1 || parsed[0] !== list) throw new InvalidCursor();
  const key = parsed.slice(1);
  if (!key.every((part): part is string => typeof part === 'string' && part.length > 0)) throw new InvalidCursor();
  return key;
}

const UNSIGNED = /^(0|[1-9][0-9]{0,18})$/;
const SQL_MAX = { int: 2_147_483_647n, bigint: 9_223_372_036_854_775_807n };

/**
 * A position, revision or count a cursor carries, as text for its SQL parameter. Cursors are opaque but not signed:
 * a forged number past its column's SQL type would fail the query (a 500), so it is refused here.
 */
export function cursorNumber(part: string, type: keyof typeof SQL_MAX): string {
  if (!UNSIGNED.test(part) || BigInt(part) > SQL_MAX[type]) throw new InvalidCursor();
  return part;
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** An instant a cursor carries: a real one, as the API writes it (no 30 February, no year 0 PostgreSQL refuses). */
export function cursorInstant(part: string): string {
  const ms = Date.parse(part);
  if (!ISO_MS.test(part) || Number.isNaN(ms) || ms < 0 || new Date(ms).toISOString() !== part)
    throw new InvalidCursor();
  return part;
}

/** RFC 3339 UTC with milliseconds, as every time in the API is written. */
export const isoSql = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Event times are kept to the millisecond so a cursor (written in ms) names a row exactly. */
export const msSql = (param: string): string => `date_trunc('milliseconds', ${param}::timestamptz)`;
