import { Problem } from '../http/problems/problem.js';
import { renderProblem } from '../http/problems/problem-details.filter.js';

export interface IngressAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export const answer = (status: number, body: unknown, headers: Record<string, string> = {}): IngressAnswer => ({
  status,
  body,
  headers,
});

const TITLES: Record<string, string> = {
  malformed_request: 'Malformed request',
  signature_missing: 'Signature missing',
  signature_invalid: 'Signature invalid',
  timestamp_out_of_tolerance: 'Timestamp out of tolerance',
  replay: 'Replayed delivery',
  not_found: 'Not found',
  payload_conflict: 'Payload conflict',
  payload_too_large: 'Payload too large',
  rate_limited: 'Rate limited',
  store_unavailable: 'Store unavailable',
};

/** Which limit shed a 429 (WH-8's stable reason), as the problem's `reason` member. */
export type ShedReason = 'global_rate' | 'lookup_rate' | 'source_rate' | 'outstanding_source' | 'outstanding_global';

export function problemAnswer(
  status: number,
  code: string,
  detail: string,
  headers: Record<string, string> = {},
  extras: Record<string, unknown> = {},
): IngressAnswer {
  const problem = new Problem(status, code, TITLES[code] ?? code, detail, extras);
  return { status, body: renderProblem(problem), headers: { ...headers, 'content-type': 'application/problem+json' } };
}

export const shed = (reason: ShedReason, detail: string, retryAfterSeconds: number): IngressAnswer =>
  problemAnswer(429, 'rate_limited', detail, { 'Retry-After': String(retryAfterSeconds) }, { reason });
