import { CLASSIFICATION_LEVELS, type Classification } from '../shared/classification.js';
import { FieldReader, isRecord } from '../shared/fields.js';
import type { Validation } from '../shared/result.js';
import { isScopePattern } from '../shared/scopes.js';

export const MISSION_STATES = ['active', 'paused', 'cancelled', 'revoked'] as const;
export type MissionLifecycle = (typeof MISSION_STATES)[number];

/** `cancelled` and `revoked` are terminal: no later revision can wake the Mission again. */
export const isTerminalMissionState = (state: MissionLifecycle): boolean =>
  state === 'cancelled' || state === 'revoked';

/** What a Mission allows the Triggers bound to it (TR-2 upper bound of every Trigger's constraints). */
export interface MissionGrants {
  maxExecutionsPerHour: number;
  maxConcurrent: number;
  resourceScopes: string[];
  classification: Classification;
  acceptLowerTrust: boolean;
  maxCausalDepth: number;
}

/** CA-1/CA-3: a hard ceiling on causal depth no Mission can raise. */
export const MAX_CAUSAL_DEPTH = 64;
export const MAX_EXECUTIONS_PER_HOUR = 100_000;
export const MAX_CONCURRENT = 10_000;
export const MAX_RESOURCE_SCOPES = 100;

const GRANT_KEYS = [
  'maxExecutionsPerHour',
  'maxConcurrent',
  'resourceScopes',
  'classification',
  'acceptLowerTrust',
  'maxCausalDepth',
];

const DEFINITION_KEYS = ['state', 'grants'];
/** Members of the PUT body that are not definition content; tolerated and ignored here. */
const ENVELOPE_KEYS = ['expectedRevision', 'reason', 'missionId'];

/**
 * Validates a PUT /v1/missions body (422 `invalid_definition`); pointers are relative to the body root.
 * Unknown members are refused, as in Triggers and Sources, so a misspelt member is never silently dropped.
 * Every grant is required except `acceptLowerTrust`, whose absence means the safe `false`.
 */
export function validateMissionDefinition(
  raw: unknown,
): Validation<{ state: MissionLifecycle; grants: MissionGrants }> {
  if (!isRecord(raw))
    return { ok: false, errors: [{ pointer: '', message: 'a mission definition must be an object' }] };
  const read = new FieldReader();
  read.onlyKnown(raw, '', [...DEFINITION_KEYS, ...ENVELOPE_KEYS]);
  const lifecycle = read.oneOf(raw, '', 'state', MISSION_STATES);
  const grants = raw.grants;
  if (!isRecord(grants)) {
    read.fail('/grants', grants === undefined || grants === null ? 'grants is required' : 'grants must be an object');
    return { ok: false, errors: read.errors };
  }
  read.onlyKnown(grants, '/grants', GRANT_KEYS);
  const value = {
    maxExecutionsPerHour: read.integer(grants, '/grants', 'maxExecutionsPerHour', {
      min: 0,
      max: MAX_EXECUTIONS_PER_HOUR,
    }),
    maxConcurrent: read.integer(grants, '/grants', 'maxConcurrent', { min: 0, max: MAX_CONCURRENT }),
    resourceScopes: read.array(grants, '/grants', 'resourceScopes', (item, at) => scopePattern(read, item, at), {
      max: MAX_RESOURCE_SCOPES,
    }),
    classification: read.oneOf(grants, '/grants', 'classification', CLASSIFICATION_LEVELS),
    acceptLowerTrust: read.boolean(grants, '/grants', 'acceptLowerTrust', false),
    maxCausalDepth: read.integer(grants, '/grants', 'maxCausalDepth', { min: 0, max: MAX_CAUSAL_DEPTH }),
  };
  if (read.errors.length > 0) return { ok: false, errors: read.errors };
  return { ok: true, value: { state: lifecycle!, grants: value as MissionGrants } };
}

export function scopePattern(read: FieldReader, item: unknown, at: string): string | undefined {
  return isScopePattern(item)
    ? item
    : read.fail(
        at,
        'must be a non-empty resource scope, with "*" only at the end and no "." or ".." segment (e.g. "repo:acme/*")',
      );
}
