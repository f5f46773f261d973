import { currentToken } from './token.js';

/** An answer other than 2xx: the problem document's stable `code` when the service sent one (RFC 9457). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | null,
    readonly detail: string | null,
    readonly body: unknown,
  ) {
    super(`${status}${code ? ` ${code}` : ''}${detail ? `: ${detail}` : ''}`);
  }
}

export class NoToken extends Error {}

type Query = Record<string, string | number | null | undefined>;

/** Only this origin's read API: a path built here from fixed segments and encoded ids. */
export function apiPath(segments: string[], query: Query = {}): string {
  const path = `/v1/${segments.map(encodeURIComponent).join('/')}`;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== null && value !== undefined && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

async function call<T>(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<T> {
  const token = currentToken();
  if (token === null) throw new NoToken('no token');
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'omit',
    cache: 'no-store',
  });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  if (!response.ok) {
    const problem = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
    throw new ApiError(
      response.status,
      typeof problem.code === 'string' ? problem.code : null,
      typeof problem.detail === 'string' ? problem.detail : typeof problem.title === 'string' ? problem.title : null,
      parsed,
    );
  }
  return parsed as T;
}

/**
 * Read-your-writes (api.md, Conventions): the store position of this tab's last write. Operator and execution
 * reads ask for it (`?minPosition=`), so a page drawn after a recover shows the recovery, not the row before it.
 */
let lastWrite: number | null = null;

export function getJson<T>(segments: string[], query: Query = {}): Promise<T> {
  const readModel = segments[0] === 'operator' || segments[0] === 'executions';
  return call<T>('GET', apiPath(segments, readModel ? { ...query, minPosition: lastWrite } : query));
}

/** A write the operator asked for; the same key on a retry of the same form is a replay, never a second write (SEC-3). */
export async function send<T>(method: 'POST' | 'PUT', path: string, body: unknown, idempotencyKey: string): Promise<T> {
  const answer = await call<T>(method, path, body, idempotencyKey);
  const position = (answer as { position?: unknown } | undefined)?.position;
  if (typeof position === 'number' && Number.isSafeInteger(position)) lastWrite = Math.max(lastWrite ?? 0, position);
  return answer;
}

/** 1–255 visible ASCII; random, and available on plain http:// too (crypto.randomUUID needs a secure context). */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `ui-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
