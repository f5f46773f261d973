import { deciderSpec } from '../shared/given-when-then.js';
import type { MissionGrants } from '../mission/mission-grants.js';
import type { DefinedMission } from '../mission/mission.js';
import { CAPABILITIES } from './trigger-authority.js';
import { validateTriggerDefinition, type TriggerDefinition } from './trigger-definition.js';
import {
  triggerDecider,
  type DeleteTrigger,
  type ReviseTrigger,
  type SetTriggerEnabled,
  type TriggerDeleted,
  type TriggerRevised,
} from './trigger.js';

/** One tenant, Mission m-1 and manual Trigger t-1, shared by the Trigger decider's specs. */
export const spec = deciderSpec(triggerDecider);
export const AT = '2026-03-01T10:00:00.000Z';
export const ALL_CAPABILITIES = Object.values(CAPABILITIES);
/** What the deployment claims today (src/adapters/config/capabilities.ts; the HTTP suite checks the real list). */
export const CLAIMED_CAPABILITIES = [
  CAPABILITIES.manual,
  CAPABILITIES.webhook,
  CAPABILITIES.schedule,
  CAPABILITIES.poll,
  CAPABILITIES.overlap,
  CAPABILITIES.guards,
  CAPABILITIES.prefilters,
  CAPABILITIES.batching,
  CAPABILITIES.causality,
  CAPABILITIES.subscriptions,
  CAPABILITIES.coalescing,
];

export const grants: MissionGrants = {
  maxExecutionsPerHour: 60,
  maxConcurrent: 2,
  resourceScopes: ['repo:acme/*'],
  classification: 'internal',
  acceptLowerTrust: false,
  maxCausalDepth: 4,
};
export const mission = (over: Partial<DefinedMission> = {}): DefinedMission => ({
  status: 'defined',
  tenant: 'acme',
  missionId: 'm-1',
  revision: 1,
  state: 'active',
  grants,
  updatedAt: AT,
  ...over,
});
export const body = (over: Record<string, unknown> = {}) => ({
  missionId: 'm-1',
  type: 'webhook',
  source: { sourceId: 'gh' },
  ...over,
});

export const revise = (over: Partial<ReviseTrigger> = {}): ReviseTrigger => ({
  type: 'ReviseTrigger',
  tenant: 'acme',
  triggerId: 't-1',
  definition: body(),
  reason: 'wire up',
  actor: 'ops',
  at: AT,
  mission: mission(),
  capabilities: ALL_CAPABILITIES,
  pins: { tzdataVersion: '2025b' },
  ...over,
});
export const toggle = (enabled: boolean, over: Partial<SetTriggerEnabled> = {}): SetTriggerEnabled => ({
  type: 'SetTriggerEnabled',
  tenant: 'acme',
  triggerId: 't-1',
  enabled,
  reason: 'ops',
  actor: 'ops',
  at: AT,
  mission: mission(),
  capabilities: ALL_CAPABILITIES,
  ...over,
});
export const remove = (over: Partial<DeleteTrigger> = {}): DeleteTrigger => ({
  type: 'DeleteTrigger',
  tenant: 'acme',
  triggerId: 't-1',
  reason: 'gone',
  actor: 'ops',
  at: AT,
  ...over,
});

/** The stored definition of `raw` with constraints inherited from `grants` unless given. */
export const stored = (
  raw: Record<string, unknown> = body(),
  constraints: Partial<TriggerDefinition['constraints']> = {},
): TriggerDefinition => {
  const result = validateTriggerDefinition(raw);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  const { maxCausalDepth: _, ...inherited } = grants;
  return { ...result.value, constraints: { ...inherited, ...result.value.constraints, ...constraints } };
};
export const revised = (
  revision: number,
  definition = stored(),
  dedupeEpoch = 1,
  extra: Partial<TriggerRevised['data']> = {},
): TriggerRevised => ({
  type: 'TriggerRevised',
  data: {
    tenant: 'acme',
    triggerId: 't-1',
    revision,
    definition,
    dedupeEpoch,
    reason: 'wire up',
    actor: 'ops',
    at: AT,
    ...extra,
  },
});
export const deleted = (revision: number): TriggerDeleted => ({
  type: 'TriggerDeleted',
  data: { tenant: 'acme', triggerId: 't-1', revision, reason: 'gone', actor: 'ops', at: AT },
});
