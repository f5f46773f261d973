import { resolvePointer } from '../shared/json-pointer.js';
import { baselineStream } from '../shared/ids.js';
import { resourceOf } from '../prefilter/unchanged.js';
import type { PrefilterSpec } from '../prefilter/prefilter.js';
import type { TriggerState } from '../trigger/trigger.js';

/** Where an Occurrence's `unchanged@1` baseline lives, and the digest its admission would record there. */
export interface BaselineTarget {
  streamId: string;
  key: string;
  resource: string | number;
  digest: string | null;
}

export const unchangedFilterOf = (trigger: TriggerState): PrefilterSpec | null =>
  trigger.status === 'defined' && !trigger.deleted
    ? (trigger.definition.prefilters.find((p) => p.id === 'unchanged' && p.version === 1) ?? null)
    : null;

/**
 * AD-4: the baseline stream one Occurrence's decision reads (and its admission advances), by the current
 * definition; null when the Trigger has no `unchanged@1` filter or the input names no usable resource.
 */
export function baselineTarget(
  tenant: string,
  triggerId: string,
  trigger: TriggerState,
  input: unknown,
): BaselineTarget | null {
  const spec = unchangedFilterOf(trigger);
  if (!spec) return null;
  const resource = resourceOf(spec, input);
  if (!resource.ok) return null;
  const found = resolvePointer(input, spec.digestPointer as string);
  const digest = found.found && typeof found.value === 'string' ? found.value : null;
  return {
    streamId: baselineStream(tenant, triggerId, resource.key),
    key: resource.key,
    resource: resource.resource,
    digest,
  };
}
