/** The read API's answers as the dashboard uses them (api.md, "Operator read API" and "Audit"). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  stale?: boolean;
}

export interface RecoveryAction {
  action: string;
  method: string;
  href: string;
}

export interface HealthRow {
  triggerId: string;
  revision: number;
  type: string | null;
  missionId: string | null;
  enabled: boolean;
  deleted?: boolean;
  health: string;
  nextFireAt: string | null;
  lastFireAt: string | null;
  lastOccurrence: { occurrenceId: string; status: string; reason: string | null; observedAt: string } | null;
  auth: { lastResult: string | null; keyId: string | null; at: string | null } | null;
  counts: {
    observed: number;
    admitted: number;
    duplicate?: number;
    blocked: Record<string, number>;
    suppressed?: Record<string, number>;
  };
  executions: { pending: number; claimed: number; retrying: number; dead: number };
  tzdataDrift: boolean;
  recovery: RecoveryAction[];
}

export interface Range {
  from: string;
  to: string;
  count: number;
}

export interface HealthDetail extends HealthRow {
  recentOccurrences: Occurrence[];
  schedule?: {
    engine: string | null;
    tzdataVersion: string | null;
    boundary: string | null;
    /** `cause`: why they never fire (the missed policy, an operator, or the revision that ended their activation). */
    skipped: Array<Range & { cause: string }>;
    held: Range[];
  };
  stale?: boolean;
}

export interface PollView {
  cursor: string | null;
  lastPollAt: string | null;
  lastResult: string | null;
  consecutiveFailures: number;
  lastError?: unknown;
  held?: { itemId?: string; index: number; reason: string } | null;
  quarantined: Array<{ itemId?: string; index: number; reason: string; at: string }>;
}

export interface Occurrence {
  occurrenceId: string;
  triggerId: string;
  triggerRevision: number;
  missionId?: string;
  kind: string;
  status: string;
  reason: string | null;
  auth: { state: string; sourceId: string | null; keyId: string | null } | null;
  externalId: string | null;
  observedAt: string;
  scheduledAt: string | null;
  firedAt: string | null;
  decidedAt?: string | null;
  dedupeIdentity: unknown;
  executionId: string | null;
  causal: {
    parentId: string | null;
    depth: number;
    ancestry: Array<{ occurrenceId?: string; operationId?: string; triggerId: string }> | 'unknown';
  } | null;
  evidence: unknown;
  members?: unknown;
  conflicts?: number;
  stale?: boolean;
}

export interface ExecutionRow {
  executionId: string;
  status: string;
  attempt?: number;
  generation?: number;
  occurrenceId?: string;
  triggerId?: string;
  missionId?: string;
  lane?: string | null;
  nextAttemptAt?: string | null;
  lastError?: { code: string; message: string } | null;
}

export interface ExecutionDetail extends ExecutionRow {
  claim: { consumerId: string; fence: number; at: string } | null;
  completion: unknown;
  settlement: unknown;
  deadLetter?: { reason: string; attempts: number; at: string } | null;
  overdue?: boolean;
  history: Array<{ type: string; at?: string } & Record<string, unknown>>;
  stale?: boolean;
}

export interface DeadLetter {
  executionId: string;
  occurrenceId: string;
  triggerId: string;
  missionId: string;
  reason: string;
  attempts: number;
  lastError: { code: string; message: string } | null;
  deadLetteredAt: string;
}

export interface AuditEvent {
  position: number;
  streamId: string;
  revision: number;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: unknown;
  recordedAt: string;
  hash: string;
  prevHash: string | null;
}

/** OP-2/CA-1/CA-2: `GET /v1/operator/occurrences/{id}/lineage`. */
export type Ancestor =
  | {
      kind: 'occurrence';
      occurrenceId: string;
      triggerId: string;
      distance: number;
      status: string | null;
      reason: string | null;
    }
  | { kind: 'operation'; operationId: string; triggerId: string; distance: number };

export interface OperationRecord {
  operationId: string;
  executionId: string;
  correlation: { sourceId: string; key: string };
  recordedAt?: string;
}

export interface Descendant {
  occurrenceId: string;
  triggerId: string;
  parentId: string | null;
  depth: number;
  distance: number;
  status: string | null;
  reason: string | null;
  observedAt: string | null;
}

export interface Lineage {
  occurrenceId: string;
  causal: Occurrence['causal'];
  ancestors: Ancestor[];
  operations: OperationRecord[];
  descendants: Descendant[];
  nextCursor: string | null;
  stale?: boolean;
}
