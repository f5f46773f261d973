import { createHash } from 'node:crypto';
import { parseRfc3339, toUtcIso } from '../schedule/index.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { ValidationError } from '../shared/errors.js';
import { resolvePointer } from '../shared/json-pointer.js';
import type { DedupePolicy, DedupeStrategy } from '../trigger/trigger-definition.js';
import type { DefinedTrigger } from '../trigger/trigger.js';

/** DD-1: holds every member that could tell two deliveries apart, TR-5's epoch and the principal included. */
export interface DedupeIdentity {
  v: 1;
  tenant: string;
  triggerId: string;
  epoch: number;
  /** `source:<sourceId>` | `manual` | `schedule` | `poll`: never taken from a payload (WH-6). */
  principal: string;
  subject: string | null;
  strategy: DedupeStrategy;
  key: string;
  /**
   * DD-4: the identity's reuse after its dedupe window expired (1, 2, …). Absent for the first use, so every
   * identity recorded before windows were honoured keeps its hash, its stream and its Occurrence id.
   */
  generation?: number;
}

type IdentityScope = Pick<DefinedTrigger, 'triggerId' | 'dedupeEpoch'> & {
  definition: { dedupe: Pick<DedupePolicy, 'strategy'> };
};

/** SHA-256 hex of the identity's canonical JSON: names the Occurrence stream (OC-3). */
export function dedupeIdentityHash(identity: DedupeIdentity): string {
  return createHash('sha256').update(canonicalJson(identity), 'utf8').digest('hex');
}

/** The Occurrence id is the identity hash, so a duplicate resolves to the same id (OC-3). */
export const occurrenceIdFor = (identity: DedupeIdentity): string => dedupeIdentityHash(identity);

function identity(
  tenant: string,
  triggerId: string,
  epoch: number,
  principal: string,
  strategy: DedupeStrategy,
  key: string,
  subject: string | null,
): DedupeIdentity {
  if (key.length === 0) throw new ValidationError('a dedupe key must be a non-empty string');
  if (!Number.isInteger(epoch) || epoch < 1) throw new ValidationError('a dedupe epoch is a positive integer');
  return { v: 1, tenant, triggerId, epoch, principal, subject, strategy, key };
}

/** The Idempotency-Key is the manual delivery identity: a retry replays, a new key fires again. */
export function manualIdentity(
  tenant: string,
  trigger: Pick<DefinedTrigger, 'triggerId' | 'dedupeEpoch'>,
  idempotencyKey: string,
): DedupeIdentity {
  return identity(tenant, trigger.triggerId, trigger.dedupeEpoch, 'manual', 'manual-key@1', idempotencyKey, null);
}

/** Webhook deliveries: principal is the authenticated source; key from `deriveDeliveryKey`. */
export function webhookIdentity(
  tenant: string,
  trigger: IdentityScope,
  sourceId: string,
  deliveryIdOrDerivedKey: string,
  subject: string | null,
): DedupeIdentity {
  return identity(
    tenant,
    trigger.triggerId,
    trigger.dedupeEpoch,
    `source:${sourceId}`,
    trigger.definition.dedupe.strategy,
    deliveryIdOrDerivedKey,
    subject,
  );
}

/** SC-3: any RFC 3339 spelling of the same instant gives the same identity. */
export function scheduleIdentity(
  tenant: string,
  trigger: Pick<DefinedTrigger, 'triggerId'>,
  epoch: number,
  instantIso: string,
): DedupeIdentity {
  const ms = parseRfc3339(instantIso);
  if (ms === null) throw new ValidationError(`not an RFC 3339 instant: ${instantIso}`);
  return identity(tenant, trigger.triggerId, epoch, 'schedule', 'schedule-instant@1', toUtcIso(ms), null);
}

/** PO-2: poll items are deduplicated like external events; key from `deriveDeliveryKey`. */
export function pollIdentity(
  tenant: string,
  trigger: IdentityScope,
  itemKey: string,
  subject: string | null,
): DedupeIdentity {
  return identity(
    tenant,
    trigger.triggerId,
    trigger.dedupeEpoch,
    'poll',
    trigger.definition.dedupe.strategy,
    itemKey,
    subject,
  );
}

export type DerivedKey =
  { ok: true; key: string; subject: string | null } | { ok: false; pointer: string; message: string };

/** A non-string key is its canonical JSON (`"7"` and `7` are one key); a missing key is a fault, never a fallback. */
export function deriveDeliveryKey(dedupe: DedupePolicy, deliveryId: string | null, payload: unknown): DerivedKey {
  let key: string;
  if (dedupe.strategy === 'payload-key@1') {
    const found = dedupe.keyPointer === null ? null : valueAt(payload, dedupe.keyPointer);
    if (found === null)
      return { ok: false, pointer: dedupe.keyPointer ?? '', message: 'the dedupe key is missing from the payload' };
    key = found;
  } else {
    if (deliveryId === null || deliveryId.length === 0)
      return { ok: false, pointer: '', message: 'the delivery has no id' };
    key = deliveryId;
  }
  if (dedupe.subjectPointer === null) return { ok: true, key, subject: null };
  const subject = valueAt(payload, dedupe.subjectPointer);
  if (subject === null)
    return { ok: false, pointer: dedupe.subjectPointer, message: 'the dedupe subject is missing from the payload' };
  return { ok: true, key, subject };
}

function valueAt(payload: unknown, pointer: string): string | null {
  const found = resolvePointer(payload, pointer);
  if (!found.found || found.value === null || found.value === undefined || found.value === '') return null;
  return typeof found.value === 'string' ? found.value : canonicalJson(found.value);
}
