import { type DedupeIdentity, occurrenceIdFor } from '../dedupe/dedupe-identity.js';
import type { DefinedTrigger } from '../trigger/trigger.js';
import type { CausalLink, ObservedOccurrence, OccurrenceAuth, OccurrenceKind } from './occurrence-events.js';
import { payloadDigest } from './payload-digest.js';

/** The Trigger revision an Occurrence is observed for: what it stays bound to (OC-2, TR-4). */
export interface ObservingTrigger {
  triggerId: string;
  triggerRevision: number;
  missionId: string;
  classification: string;
}

export const observingTrigger = (trigger: DefinedTrigger): ObservingTrigger => ({
  triggerId: trigger.triggerId,
  triggerRevision: trigger.revision,
  missionId: trigger.definition.missionId,
  classification: trigger.definition.constraints.classification,
});

/** What an Occurrence carries as evidence, with the digest that tells a duplicate from a payload_conflict (OC-4). */
export interface Evidence {
  input: unknown;
  resourceRefs: string[];
  payloadDigest: string;
}

export const manualEvidence = (input: unknown, resourceRefs: string[]): Evidence => ({
  input,
  resourceRefs,
  payloadDigest: payloadDigest({ input, resourceRefs }),
});

/** The digest is of the parsed payload alone, so a redelivery written with other bytes is still a duplicate. */
export const deliveredEvidence = (payload: unknown): Evidence => ({
  input: payload,
  resourceRefs: [],
  payloadDigest: payloadDigest(payload),
});

/** A schedule instant carries no payload: the instant (scheduledAt) is its whole evidence. */
export const NO_EVIDENCE: Readonly<Evidence> = Object.freeze(manualEvidence(null, []));

export interface Observation {
  kind: OccurrenceKind;
  trigger: ObservingTrigger;
  dedupeIdentity: DedupeIdentity;
  evidence: Evidence;
  observedAt: string;
  /** Who authenticated the delivery; Reveille itself (internal) for manual and schedule. */
  auth?: OccurrenceAuth;
  externalId?: string | null;
  /** CA-2: set only by the ingress from a verified correlation (absent: a root). */
  causal?: CausalLink;
}

/**
 * The one way an observed Occurrence is built, whatever its kind (OC-2): the id is the identity's hash
 * (OC-3), a schedule's intended instant is its identity's key (SC-3), and it starts a causal chain of
 * its own unless the ingress found a verified correlation (CA-2: never taken from a payload).
 */
export function observedOccurrence(observation: Observation): ObservedOccurrence {
  const {
    kind,
    trigger,
    dedupeIdentity,
    evidence,
    observedAt,
    auth = { state: 'internal', sourceId: null, keyId: null, keyGeneration: null },
    externalId = null,
    causal = { parentId: null, depth: 0, ancestry: [] },
  } = observation;
  const dedupeHash = occurrenceIdFor(dedupeIdentity);
  return {
    occurrenceId: dedupeHash,
    tenant: dedupeIdentity.tenant,
    triggerId: trigger.triggerId,
    triggerRevision: trigger.triggerRevision,
    missionId: trigger.missionId,
    kind,
    auth,
    externalId,
    dedupeIdentity,
    dedupeHash,
    payloadDigest: evidence.payloadDigest,
    input: evidence.input,
    // A copy: evidence may be shared (NO_EVIDENCE, one delivery reaching several Triggers).
    resourceRefs: [...evidence.resourceRefs],
    classification: trigger.classification,
    scheduledAt: kind === 'schedule' ? dedupeIdentity.key : null,
    // A copy: one delivery's link is shared by every Trigger it reaches.
    causal: { ...causal, ancestry: causal.ancestry === 'unknown' ? 'unknown' : causal.ancestry.map((e) => ({ ...e })) },
    observedAt,
  };
}
