/** Every rule `reveille audit verify` checks (AU-2); the names are stable, scripts read them from `--json`. */
export const AUDIT_RULES = [
  'revision_gap',
  'prev_hash_mismatch',
  'hash_mismatch',
  /** A stream's events must rise in position with their revisions: appends to one stream are serialized. */
  'position_out_of_order',
  'replay_failed',
  'decision_without_observation',
  'second_decision',
  'request_mismatch',
  'duplicate_request',
  'admitted_for_cancelled_mission',
  'execution_without_admission',
  'completion_after_noncommit',
  'claim_not_fenced',
  'completion_not_fenced',
  /** CA-2: an Operation recorded by anyone but the current claim holder. */
  'operation_not_fenced',
  /** SU-1: an Occurrence delivered to a subscription registered after its acceptance. */
  'subscribed_out_of_order',
  /** Not a log rule: a read model rebuilt from the log differs from the live one (the CLI compares them). */
  'read_model_mismatch',
] as const;

export type AuditRule = (typeof AUDIT_RULES)[number];

export interface AuditViolation {
  rule: AuditRule;
  streamId: string;
  position: number;
  revision: number;
  detail: string;
}

export interface RuleTally {
  count: number;
  /** In log order, at most five of them. */
  firstPositions: number[];
}

export interface AuditSummary {
  events: number;
  streams: number;
  violations: number;
  byRule: Partial<Record<AuditRule, RuleTally>>;
  /** The first `listLimit` violations in log order; `violations` counts them all. */
  listed: AuditViolation[];
}
