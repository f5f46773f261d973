import { classificationRank } from '../shared/classification.js';
import type { FieldError } from '../shared/result.js';
import { uncoveredScopes } from '../shared/scopes.js';
import type { MissionGrants } from '../mission/mission-grants.js';
import type { TriggerConstraints } from './trigger-blocks.js';
import type { TriggerType, ValidatedTriggerDefinition } from './trigger-definition.js';

/** CP-1 capability names a deployment can claim. */
export const CAPABILITIES = {
  manual: 'wf.manual-initiation',
  schedule: 'wf.scheduled-initiation',
  webhook: 'wf.external-event-initiation',
  poll: 'wf.polling-initiation',
  batching: 'wf.batching',
  coalescing: 'wf.coalescing',
} as const;

const TYPE_CAPABILITY: Readonly<Record<TriggerType, string>> = CAPABILITIES;

export function requiredCapabilities(
  definition: Pick<ValidatedTriggerDefinition, 'type' | 'batch' | 'coalesce'>,
): { capability: string; pointer: string }[] {
  const needed = [{ capability: TYPE_CAPABILITY[definition.type], pointer: '/type' }];
  if (definition.batch) needed.push({ capability: CAPABILITIES.batching, pointer: '/batch' });
  if (definition.coalesce.length > 0) needed.push({ capability: CAPABILITIES.coalescing, pointer: '/coalesce' });
  return needed;
}

/** CP-1: each capability the definition needs and the deployment does not claim. */
export function unsupportedCapabilities(
  definition: Pick<ValidatedTriggerDefinition, 'type' | 'batch' | 'coalesce'>,
  claimed: readonly string[],
): { capability: string; pointer: string }[] {
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
