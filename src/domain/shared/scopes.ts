/**
 * TR-2/AD-2: resource scopes and the resources they cover. Resource ids are opaque strings made of segments
 * separated by `/`, `:` or `\` (`repo:acme/api`). A scope is an exact resource or a glob with one `*`, at the end
 * only (`repo:acme/*`), standing for one or more further characters. Neither holds a `.` or `..` segment: a
 * consumer resolving `repo:acme/../evil` as a path would leave the scope, so no such id is ever covered.
 */
const SEPARATORS = /[/:\\]/;

/** No segment is `.` or `..` (a path step a consumer could resolve out of the scope). */
const hasDotSegment = (value: string): boolean => value.split(SEPARATORS).some((s) => s === '.' || s === '..');

/** An exact resource (`repo:acme/api`) or a glob with `*` only at the end; never a `.` or `..` segment. */
export function isScopePattern(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 512) return false;
  const star = value.indexOf('*');
  return (star === -1 || star === value.length - 1) && !hasDotSegment(value);
}

/** A concrete resource ref (a manual fire's `resourceRefs`): a scope pattern without any `*`. */
export function isResourceRef(value: unknown): value is string {
  return isScopePattern(value) && !value.includes('*');
}

/** What a resource ref may not be, for a 400's message. */
export const RESOURCE_REF_RULE =
  'must be a resource id of 1 to 512 characters without "*" and without a "." or ".." segment (between "/", ":" or "\\")';

/**
 * A grant covers a resource (or a narrower scope) when they are equal, or when the grant ends in `*` and the other
 * starts with what precedes it and goes on by at least one character (`repo:acme/*` covers `repo:acme/api`, never
 * `repo:acme/`). Both must be well formed, so a `..` segment can never climb out of a covered prefix.
 */
export function scopeCovers(grant: string, requested: string): boolean {
  if (!isScopePattern(grant) || !isScopePattern(requested)) return false;
  if (grant === requested) return true;
  if (!grant.endsWith('*')) return false;
  const prefix = grant.slice(0, -1);
  return requested.length > prefix.length && requested.startsWith(prefix);
}

export function uncoveredScopes(requested: readonly string[], grants: readonly string[]): string[] {
  return requested.filter((wanted) => !grants.some((grant) => scopeCovers(grant, wanted)));
}

export function scopesWithin(requested: readonly string[], grants: readonly string[]): boolean {
  return uncoveredScopes(requested, grants).length === 0;
}
