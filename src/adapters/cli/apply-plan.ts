import { canonicalJson } from '../../domain/shared/canonical-json.js';
import type { FieldError } from '../../domain/shared/result.js';
import { validateMissionDefinition } from '../../domain/mission/mission-grants.js';
import type { MissionGrants } from '../../domain/mission/mission-grants.js';
import { validateSourceDefinition } from '../../domain/source/source-definition.js';
import { validateTriggerDefinition } from '../../domain/trigger/trigger-definition.js';
import { resolveConstraints } from '../../domain/trigger/trigger-authority.js';
import type { Entry } from './apply-file.js';

/** What a read answers besides the definition itself. */
const READ_ONLY: Record<Entry['kind'], string[]> = {
  missions: ['missionId', 'revision', 'updatedAt', 'stale'],
  sources: ['sourceId', 'revision', 'keys', 'updatedAt', 'stale'],
  triggers: ['triggerId', 'revision', 'dedupeEpoch', 'pins', 'revisedAt', 'stale'],
};

export type Comparison = { equal: boolean } | { errors: FieldError[] };

/**
 * For `--dry-run` only: the entry normalized with the domain's own validators (defaults filled, constraints
 * inherited from the Mission's grants), compared with the stored definition the way the decider compares.
 * A real apply does not rely on this: the service's answer (revision before and after) says what happened.
 */
export function compareWithCurrent(
  entry: Entry,
  current: Record<string, unknown>,
  missionGrants: (missionId: string) => MissionGrants | undefined,
): Comparison {
  const stored = Object.fromEntries(Object.entries(current).filter(([key]) => !READ_ONLY[entry.kind].includes(key)));
  const { reason: _reason, ...definition } = entry.body;
  if (entry.kind === 'missions') {
    const validated = validateMissionDefinition(definition);
    if (!validated.ok) return { errors: validated.errors };
    return { equal: canonicalJson(validated.value) === canonicalJson({ state: stored.state, grants: stored.grants }) };
  }
  if (entry.kind === 'sources') {
    const validated = validateSourceDefinition(definition);
    if (!validated.ok) return { errors: validated.errors };
    return { equal: canonicalJson(validated.value) === canonicalJson(stored) };
  }
  const validated = validateTriggerDefinition(definition);
  if (!validated.ok) return { errors: validated.errors };
  const grants = missionGrants(validated.value.missionId);
  if (!grants) return { equal: false };
  const wanted = { ...validated.value, constraints: resolveConstraints(validated.value.constraints, grants) };
  return { equal: canonicalJson(wanted) === canonicalJson(stored) };
}
