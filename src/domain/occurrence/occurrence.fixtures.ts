import type { AdmissionFacts } from '../admission/admission-policy.js';
import { budgetWindowStart } from '../admission/budget.js';
import { dedupeIdentityHash, manualIdentity, occurrenceIdFor, webhookIdentity } from '../dedupe/dedupe-identity.js';
import type { MissionGrants, MissionLifecycle } from '../mission/mission-grants.js';
import type { DefinedMission } from '../mission/mission.js';
import { defaultDelivery } from '../trigger/trigger-blocks.js';
import type { TriggerDefinition } from '../trigger/trigger-definition.js';
import type { DefinedTrigger } from '../trigger/trigger.js';
import type { ObservedOccurrence } from './occurrence-events.js';
import type { AdmitOccurrence, ObserveOccurrence } from './occurrence.js';

/** Test fixtures for occurrence and admission specs: one tenant, Mission m-1, webhook Trigger t-1. */
export const OBSERVED_AT = '2026-03-01T10:15:00.000Z';
export const NOW = '2026-03-01T10:15:02.000Z';

export const grants = (over: Partial<MissionGrants> = {}): MissionGrants => ({
  maxExecutionsPerHour: 60,
  maxConcurrent: 2,
  resourceScopes: ['repo:acme/*'],
  classification: 'confidential',
  acceptLowerTrust: true,
  maxCausalDepth: 4,
  ...over,
});

export const mission = (state: MissionLifecycle = 'active', over: Partial<MissionGrants> = {}): DefinedMission => ({
  status: 'defined',
  tenant: 'acme',
  missionId: 'm-1',
  revision: 3,
  state,
  grants: grants(over),
  updatedAt: OBSERVED_AT,
});

export const definition = (over: Partial<TriggerDefinition> = {}): TriggerDefinition => ({
  missionId: 'm-1',
  type: 'webhook',
  enabled: true,
  source: { sourceId: 'gh', eventTypes: null },
  schedule: null,
  poll: null,
  dedupe: {
    strategy: 'delivery-id@1',
    keyPointer: null,
    subjectPointer: null,
    windowSeconds: 604_800,
    onRevision: 'retain',
  },
  coalesce: [],
  batch: null,
  overlap: 'allow',
  queueByPointer: null,
  guard: null,
  prefilters: [],
  causality: null,
  constraints: {
    maxExecutionsPerHour: 10,
    maxConcurrent: 1,
    resourceScopes: ['repo:acme/api'],
    classification: 'internal',
    acceptLowerTrust: true,
  },
  acceptOlderRevisions: false,
  delivery: defaultDelivery(),
  ...over,
});

export const trigger = (
  over: Partial<DefinedTrigger> = {},
  definitionOver: Partial<TriggerDefinition> = {},
): DefinedTrigger => {
  const def = definition(definitionOver);
  return {
    status: 'defined',
    tenant: 'acme',
    triggerId: 't-1',
    revision: 2,
    definition: def,
    dedupeEpoch: 1,
    createdRevision: 1,
    enabled: def.enabled,
    deleted: false,
    revisedAt: OBSERVED_AT,
    pins: null,
    ...over,
  };
};

export const observed = (over: Partial<ObservedOccurrence> = {}, deliveryId = 'd-1'): ObservedOccurrence => {
  const identity = webhookIdentity('acme', trigger(), 'gh', deliveryId, null);
  return {
    occurrenceId: occurrenceIdFor(identity),
    tenant: 'acme',
    triggerId: 't-1',
    triggerRevision: 2,
    missionId: 'm-1',
    kind: 'webhook',
    auth: { state: 'verified', sourceId: 'gh', keyId: 'k1', keyGeneration: 1 },
    externalId: deliveryId,
    dedupeIdentity: identity,
    dedupeHash: dedupeIdentityHash(identity),
    payloadDigest: 'digest-a',
    input: { resource: { id: 'api' }, action: 'opened' },
    resourceRefs: ['repo:acme/api'],
    classification: 'internal',
    scheduledAt: null,
    causal: { parentId: null, depth: 0, ancestry: [] },
    observedAt: OBSERVED_AT,
    ...over,
  };
};

export const manualObserved = (key: string): ObservedOccurrence => {
  const identity = manualIdentity('acme', trigger(), key);
  return {
    ...observed(),
    kind: 'manual',
    auth: { state: 'internal' },
    externalId: null,
    dedupeIdentity: identity,
    dedupeHash: dedupeIdentityHash(identity),
    occurrenceId: occurrenceIdFor(identity),
  };
};

export const observe = (occurrence: ObservedOccurrence = observed()): ObserveOccurrence => ({
  type: 'ObserveOccurrence',
  ...occurrence,
});

export const facts = (over: Partial<AdmissionFacts> = {}): AdmissionFacts => ({
  trigger: trigger(),
  mission: mission(),
  budget: { windowStart: budgetWindowStart(NOW), consumed: 0, alreadyCountedThisOccurrence: false },
  activeExecutions: 0,
  keyRevoked: false,
  triggerRunning: false,
  ...over,
});

export const admit = (over: Partial<AdmissionFacts> = {}, occurrenceId = observed().occurrenceId): AdmitOccurrence => ({
  type: 'AdmitOccurrence',
  occurrenceId,
  executionId: 'e-1',
  now: NOW,
  facts: facts(over),
});
