import { StoreUnavailable } from '../../../domain/shared/errors.js';

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/** Connection-level failures become StoreUnavailable; everything else (constraint errors, bugs) stays itself. */
export function isConnectionFailure(error: unknown): boolean {
  // Duck-typed: errors raised by Node internals may come from another realm (jest's VM), failing instanceof.
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
  return (
    typeof message === 'string' &&
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Cannot use a pool after calling end|PGlite is closed/i.test(
      message,
    )
  );
}

export function translateStoreError(error: unknown): unknown {
  return isConnectionFailure(error)
    ? new StoreUnavailable(String((error as { message?: unknown }).message), { cause: error })
    : error;
}

export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === '23505';
}
