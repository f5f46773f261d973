/** AD-3: stable reason codes for every non-admission outcome; never renamed, only added to. */
export const REASON_CODES = [
  'duplicate',
  'payload_conflict',
  'replay',
  'trigger_disabled',
  'trigger_deleted',
  'revision_superseded',
  'mission_paused',
  'mission_cancelled',
  'mission_revoked',
  'key_revoked',
  'scope_violation',
  'authority_widening',
  'budget_exhausted',
  'concurrency_limit',
  'overlap_skip',
  'guard_false',
  'guard_fault',
  'causal_loop',
  'causal_depth_exceeded',
  'unchanged',
  'irrelevant',
  'outside_window',
  'filter_inconclusive',
  'lower_trust_not_allowed',
  'rate_limited',
  // DD-5: decided as an earlier member of a coalesced group (status `coalesced`).
  'coalesced',
] as const;

export type ReasonCode = (typeof REASON_CODES)[number];

export function isReasonCode(value: unknown): value is ReasonCode {
  return typeof value === 'string' && (REASON_CODES as readonly string[]).includes(value);
}
