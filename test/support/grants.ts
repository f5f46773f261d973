/** A Mission's grants for API tests: each suite states only the limits its tests lean on. */
export function missionGrants(limits: {
  maxExecutionsPerHour: number;
  maxConcurrent: number;
  acceptLowerTrust?: boolean;
}) {
  return {
    maxExecutionsPerHour: limits.maxExecutionsPerHour,
    maxConcurrent: limits.maxConcurrent,
    resourceScopes: ['repo:acme/*'],
    classification: 'internal',
    acceptLowerTrust: limits.acceptLowerTrust ?? false,
    maxCausalDepth: 4,
  };
}
