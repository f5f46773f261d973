import { Problem } from '../http/problems/problem.js';
import { renderProblem } from '../http/problems/problem-details.filter.js';

export interface IngressAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export const answer = (status: number, body: unknown, headers: Record<string, string> = {}): IngressAnswer => ({ status, body, headers });

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

export function problemAnswer(status: number, code: string, detail: string, headers: Record<string, string> = {}): IngressAnswer {
  const problem = new Problem(status, code, TITLES[code] ?? code, detail);
  return { status, body: renderProblem(problem), headers: { ...headers, 'content-type': 'application/problem+json' } };
}
