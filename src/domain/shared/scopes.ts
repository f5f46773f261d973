/**
 * Resource scope patterns: an exact resource (`repo:acme/api`) or a prefix glob with `*` only at the
 * end (`repo:acme/*`, `repo:*`, `*`). No other wildcard exists, so coverage is a prefix test.
 */
export function isScopePattern(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 512) return false;
  const star = value.indexOf('*');
  return star === -1 || star === value.length - 1;
}

/** Whether `grant` covers everything `requested` (a resource or a pattern) can name. */
export function scopeCovers(grant: string, requested: string): boolean {
  if (!isScopePattern(grant) || !isScopePattern(requested)) return false;
  if (!grant.endsWith('*')) return grant === requested;
  return requested.startsWith(grant.slice(0, -1));
}

/** Requested patterns that no grant covers (empty: the request is within the grants). */
export function uncoveredScopes(requested: readonly string[], grants: readonly string[]): string[] {
  return requested.filter((wanted) => !grants.some((grant) => scopeCovers(grant, wanted)));
}

/** Every requested pattern is covered by some grant pattern. */
export function scopesWithin(requested: readonly string[], grants: readonly string[]): boolean {
  return uncoveredScopes(requested, grants).length === 0;
}
