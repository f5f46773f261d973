import type { EventMetadata } from '../../domain/ports/event-store.js';

/** Who asked and under which request: becomes every appended event's metadata. */
export interface CommandContext {
  tenant: string;
  actor: string;
  correlationId: string;
  /** The request's Idempotency-Key and fingerprint (SEC-3), so a retry can find what it already wrote. */
  idempotency?: RequestIdentity;
}

export interface RequestIdentity {
  key: string;
  fingerprint: string;
  /** A retry that took the key over from a run that may have committed before it died (SEC-3). */
  takenOver?: boolean;
}

export const metadataOf = (context: CommandContext, causationId?: string): EventMetadata => ({
  tenant: context.tenant,
  actor: context.actor,
  correlationId: context.correlationId,
  ...(causationId ? { causationId } : {}),
  ...(context.idempotency
    ? { idempotencyKey: context.idempotency.key, requestFingerprint: context.idempotency.fingerprint }
    : {}),
});

/** The request an event was written for, when it was written for one. */
export function requestOf(metadata: EventMetadata): RequestIdentity | null {
  const { idempotencyKey: key, requestFingerprint: fingerprint } = metadata;
  return typeof key === 'string' && typeof fingerprint === 'string' ? { key, fingerprint } : null;
}
