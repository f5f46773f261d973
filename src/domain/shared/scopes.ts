/** An exact resource (`repo:acme/api`) or a glob with `*` only at the end, so coverage is a prefix test. */
export function isScopePattern(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 512) return false;
  const star = value.indexOf('*');
  return star === -1 || star === value.length - 1;
}

export function scopeCovers(grant: string, requested: string): boolean {
  if (!isScopePattern(grant) || !isScopePattern(requested)) return false;
  if (!grant.endsWith('*')) return grant === requested;
  return requested.startsWith(grant.slice(0, -1));
}

export function uncoveredScopes(requested: readonly string[], grants: readonly string[]): string[] {
  return requested.filter((wanted) => !grants.some((grant) => scopeCovers(grant, wanted)));
}

export function scopesWithin(requested: readonly string[], grants: readonly string[]): boolean {
  return uncoveredScopes(requested, grants).length === 0;
}
