import { classificationRank } from '../shared/classification.js';
import type { FieldError } from '../shared/result.js';
import { uncoveredScopes } from '../shared/scopes.js';
import type { MissionGrants } from '../mission/mission-grants.js';
import type { TriggerConstraints } from './trigger-blocks.js';
import { DEFAULT_WINDOW_SECONDS, type TriggerType, type ValidatedTriggerDefinition } from './trigger-definition.js';

/** CP-1 capability ids a deployment can claim (api.md), plus the one entry below that has no listed id. */
export const CAPABILITIES = {
  manual: 'wf.manual-initiation',
  schedule: 'wf.scheduled-initiation',
  webhook: 'wf.external-event-initiation',
  poll: 'wf.polling-initiation',
  batching: 'wf.batching',
  coalescing: 'wf.coalescing',
  guards: 'wf.guards',
  prefilters: 'wf.prefilters',
  overlap: 'wf.overlap',
  causality: 'wf.causality',
  subscriptions: 'wf.subscriptions',
  /**
   * DD-4 `dedupe.windowSeconds` other than the default: api.md lists no id for it, yet a window that is
   * accepted and never honoured is exactly what CP-1 forbids, so it is refused under this id until it is.
   */
  dedupeWindows: 'wf.dedupe-windows',
} as const;

const TYPE_CAPABILITY: Readonly<Record<TriggerType, string>> = CAPABILITIES;

/** The parts of a definition that can need a capability beyond its type's. */
export type CapabilityRelevant = Pick<
  ValidatedTriggerDefinition,
  'type' | 'batch' | 'coalesce' | 'guard' | 'prefilters' | 'overlap' | 'queueByPointer' | 'causality' | 'dedupe'
>;

export interface CapabilityNeed {
  capability: string;
  pointer: string;
}

/**
 * CP-1: every entry of the definition and the capability it needs, in body order. A member left at its
 * default (`overlap: "allow"`, no `queueByPointer`, the default dedupe window, empty lists) needs nothing.
 */
export function requiredCapabilities(definition: CapabilityRelevant): CapabilityNeed[] {
  const needed: CapabilityNeed[] = [{ capability: TYPE_CAPABILITY[definition.type], pointer: '/type' }];
  const need = (capability: string, pointer: string) => needed.push({ capability, pointer });
  if (definition.dedupe.windowSeconds !== DEFAULT_WINDOW_SECONDS)
    need(CAPABILITIES.dedupeWindows, '/dedupe/windowSeconds');
  definition.coalesce.forEach((_, index) => need(CAPABILITIES.coalescing, `/coalesce/${index}`));
  if (definition.batch) need(CAPABILITIES.batching, '/batch');
  if (definition.overlap !== 'allow') need(CAPABILITIES.overlap, '/overlap');
  // AD-5 resource lanes are specified with overlap (api.md "overlap" block), so they share its capability.
  if (definition.queueByPointer !== null) need(CAPABILITIES.overlap, '/queueByPointer');
  if (definition.guard) need(CAPABILITIES.guards, '/guard');
  definition.prefilters.forEach((_, index) => need(CAPABILITIES.prefilters, `/prefilters/${index}`));
  if (definition.causality) need(CAPABILITIES.causality, '/causality');
  return needed;
}

/** CP-1: each entry needing a capability the deployment does not claim (a revision is then refused whole). */
export function unsupportedCapabilities(definition: CapabilityRelevant, claimed: readonly string[]): CapabilityNeed[] {
  return requiredCapabilities(definition).filter(({ capability }) => !claimed.includes(capability));
}

/** Fills each constraint the definition leaves out with the Mission's current grant (inheritance). */
export function resolveConstraints(given: Partial<TriggerConstraints>, grants: MissionGrants): TriggerConstraints {
  return {
    maxExecutionsPerHour: given.maxExecutionsPerHour ?? grants.maxExecutionsPerHour,
    maxConcurrent: given.maxConcurrent ?? grants.maxConcurrent,
    resourceScopes: given.resourceScopes ?? [...grants.resourceScopes],
    classification: given.classification ?? grants.classification,
    acceptLowerTrust: given.acceptLowerTrust ?? grants.acceptLowerTrust,
    // Not a grant: nothing to inherit, so it is only present when the Trigger chose it.
    ...(given.onConcurrencyLimit ? { onConcurrencyLimit: given.onConcurrencyLimit } : {}),
  };
}

/** TR-2, CA-3: one error per constraint wider than the Mission's current grants, causal depth included. */
export function authorityWidening(
  constraints: TriggerConstraints,
  causality: { maxDepth: number } | null,
  grants: MissionGrants,
): FieldError[] {
  const errors: FieldError[] = [];
  const exceeds = (pointer: string, what: string, granted: unknown) =>
    errors.push({ pointer, message: `${what} exceeds the Mission's grant (${JSON.stringify(granted)})` });
  if (constraints.maxExecutionsPerHour > grants.maxExecutionsPerHour)
    exceeds('/constraints/maxExecutionsPerHour', 'maxExecutionsPerHour', grants.maxExecutionsPerHour);
  if (constraints.maxConcurrent > grants.maxConcurrent)
    exceeds('/constraints/maxConcurrent', 'maxConcurrent', grants.maxConcurrent);
  const outside = new Set(uncoveredScopes(constraints.resourceScopes, grants.resourceScopes));
  constraints.resourceScopes.forEach((scope, index) => {
    if (outside.has(scope))
      exceeds(`/constraints/resourceScopes/${index}`, `resource scope "${scope}"`, grants.resourceScopes);
  });
  if (classificationRank(constraints.classification) > classificationRank(grants.classification))
    exceeds('/constraints/classification', 'classification', grants.classification);
  if (constraints.acceptLowerTrust && !grants.acceptLowerTrust)
    exceeds('/constraints/acceptLowerTrust', 'acceptLowerTrust', grants.acceptLowerTrust);
  if (causality && causality.maxDepth > grants.maxCausalDepth)
    exceeds('/causality/maxDepth', 'causality.maxDepth', grants.maxCausalDepth);
  return errors;
}
