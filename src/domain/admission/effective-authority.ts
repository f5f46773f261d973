import { minClassification, type Classification } from '../shared/classification.js';
import { isResourceRef, uncoveredScopes } from '../shared/scopes.js';
import type { MissionGrants } from '../mission/mission-grants.js';
import type { TriggerDefinition } from '../trigger/trigger-definition.js';

/**
 * TR-2: what an admission may use: the intersection of the bound Trigger's constraints and the
 * Mission's *current* grants. Scopes stay two lists because the intersection of two prefix-glob
 * sets is exactly "covered by both".
 */
export interface EffectiveAuthority {
  maxExecutionsPerHour: number;
  maxConcurrent: number;
  triggerScopes: string[];
  missionScopes: string[];
  classification: Classification;
  acceptLowerTrust: boolean;
  maxCausalDepth: number;
}

export function effectiveAuthority(
  definition: Pick<TriggerDefinition, 'constraints' | 'causality'>,
  grants: MissionGrants,
): EffectiveAuthority {
  const { constraints, causality } = definition;
  return {
    maxExecutionsPerHour: Math.min(constraints.maxExecutionsPerHour, grants.maxExecutionsPerHour),
    maxConcurrent: Math.min(constraints.maxConcurrent, grants.maxConcurrent),
    triggerScopes: constraints.resourceScopes,
    missionScopes: grants.resourceScopes,
    classification: minClassification(constraints.classification, grants.classification),
    acceptLowerTrust: constraints.acceptLowerTrust && grants.acceptLowerTrust,
    maxCausalDepth: Math.min(causality?.maxDepth ?? Number.POSITIVE_INFINITY, grants.maxCausalDepth),
  };
}

/** AD-2/TR-2: the refs no scope covers; a ref that is no concrete resource (a `*`, a `.`/`..` segment) is always outside. */
export function resourcesOutside(resourceRefs: readonly string[], authority: EffectiveAuthority): string[] {
  const outside = new Set([
    ...resourceRefs.filter((ref) => !isResourceRef(ref)),
    ...uncoveredScopes(resourceRefs, authority.triggerScopes),
    ...uncoveredScopes(resourceRefs, authority.missionScopes),
  ]);
  return resourceRefs.filter((ref) => outside.has(ref));
}
