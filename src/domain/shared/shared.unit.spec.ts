import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import { classificationRank, isWithin, minClassification } from './classification.js';
import {
  budgetStream,
  executionStream,
  hashId,
  missionStream,
  occurrenceStream,
  sourceStream,
  triggerStream,
} from './ids.js';
import { isJsonPointer, resolvePointer } from './json-pointer.js';
import { isRejection, reject } from './result.js';
import { isResourceRef, isScopePattern, scopeCovers, scopesWithin, uncoveredScopes } from './scopes.js';

describe('stream names (outside ids are hashed, never concatenated raw)', () => {
  it('hashes the parts as a list, so shifting a separator changes the stream', () => {
    expect(hashId('a-b', 'c')).not.toBe(hashId('a', 'b-c'));
    expect(hashId('a', 'b')).toMatch(/^[0-9a-f]{64}$/);
  });
  it('a remembered hash is the hash: the same before and after 25,000 other ids pushed it out', () => {
    const direct = (...parts: string[]) => createHash('sha256').update(canonicalJson(parts), 'utf8').digest('hex');
    const first = hashId('tenant', 'm-1');
    expect(first).toBe(direct('tenant', 'm-1'));
    expect(hashId('tenant', 'm-1')).toBe(first);
    for (let i = 0; i < 25_000; i++) expect(hashId('tenant', `m-${i}`)).toBe(direct('tenant', `m-${i}`));
    expect(hashId('tenant', 'm-1')).toBe(first);
    // Remembered by the list, never by a joined string.
    expect(hashId('a,b')).not.toBe(hashId('a', 'b'));
    expect(hashId('a\u0000b')).toBe(direct('a\u0000b'));
  });
  it('scopes each resource by tenant and names the category', () => {
    expect(missionStream('t1', 'm-1')).toMatch(/^mission-[0-9a-f]{64}$/);
    expect(missionStream('t1', 'm-1')).not.toBe(missionStream('t2', 'm-1'));
    expect(triggerStream('t1', '../m-1')).not.toContain('..');
    expect(sourceStream('t1', 'gh')).toMatch(/^source-[0-9a-f]{64}$/);
    expect(occurrenceStream('ab'.repeat(32))).toBe(`occurrence-${'ab'.repeat(32)}`);
    expect(budgetStream('t1', 'm-1', '2026-01-01T10:00:00.000Z')).not.toBe(
      budgetStream('t1', 'm-1', '2026-01-01T11:00:00.000Z'),
    );
    expect(executionStream('e-1')).toMatch(/^execution-[0-9a-f]{64}$/);
  });
});

describe('OC-5 classification', () => {
  it('orders public < internal < confidential < restricted', () => {
    expect(
      ['restricted', 'public', 'confidential', 'internal'].sort(
        (a, b) => classificationRank(a) - classificationRank(b),
      ),
    ).toEqual(['public', 'internal', 'confidential', 'restricted']);
  });
  it('counts an unknown label as the most restrictive', () => {
    expect(classificationRank('top-secret')).toBe(classificationRank('restricted'));
    expect(isWithin('top-secret', 'confidential')).toBe(false);
    expect(isWithin('top-secret', 'restricted')).toBe(true);
  });
  it('admits nothing under an unknown ceiling and takes the tighter of two ceilings', () => {
    expect(isWithin('public', 'bogus')).toBe(false);
    expect(isWithin('internal', 'internal')).toBe(true);
    expect(minClassification('confidential', 'internal')).toBe('internal');
  });
});

describe('TR-2 resource scopes', () => {
  it('covers resources under a prefix glob and exact matches only otherwise', () => {
    expect(scopeCovers('repo:acme/*', 'repo:acme/api')).toBe(true);
    expect(scopeCovers('repo:acme/api', 'repo:acme/api')).toBe(true);
    expect(scopeCovers('repo:acme/api', 'repo:acme/web')).toBe(false);
    expect(scopeCovers('repo:acme/*', 'repo:acmecorp/api')).toBe(false);
  });
  it('compares patterns as sets: a glob is covered by an equal or wider glob, never by an exact scope', () => {
    expect(scopeCovers('repo:acme/*', 'repo:acme/*')).toBe(true);
    expect(scopeCovers('repo:*', 'repo:acme/*')).toBe(true);
    expect(scopeCovers('repo:acme/api', 'repo:acme/*')).toBe(false);
    expect(scopeCovers('repo:acme/*', 'repo:*')).toBe(false);
    expect(scopeCovers('repo:acme/*', 'repo:acme*')).toBe(false);
  });
  it('refuses a wildcard anywhere but at the end', () => {
    expect(scopeCovers('repo:*/api', 'repo:x/api')).toBe(false);
  });
  it('TR-2 given a `.` or `..` segment (between "/", ":" or "\\"), when matched, then nothing covers it and no scope may hold one', () => {
    for (const ref of ['repo:acme/../evil', 'repo:acme/./api', 'repo:acme/..', 'repo:acme\\..\\evil', 'repo:../acme/x'])
      expect([ref, scopeCovers('repo:acme/*', ref), scopeCovers('*', ref), isResourceRef(ref)]).toEqual([
        ref,
        false,
        false,
        false,
      ]);
    expect(isScopePattern('repo:acme/../*')).toBe(false);
    expect(scopeCovers('repo:acme/*', 'repo:acme/a..b')).toBe(true);
  });
  it('TR-2 the final `*` stands for at least one more character: `repo:acme/*` never covers `repo:acme/`', () => {
    expect(scopeCovers('repo:acme/*', 'repo:acme/')).toBe(false);
    expect(scopeCovers('repo:acme/*', 'repo:acme/a')).toBe(true);
  });
  it('TR-2 a concrete resource ref holds no `*`', () => {
    expect([isResourceRef('repo:acme/*'), isResourceRef('repo:acme/api'), isResourceRef('')]).toEqual([
      false,
      true,
      false,
    ]);
  });
  it('needs every requested pattern covered by some grant', () => {
    expect(scopesWithin(['repo:acme/api', 'repo:other/x'], ['repo:acme/*', 'repo:other/*'])).toBe(true);
    expect(uncoveredScopes(['repo:acme/api', 'repo:evil/x'], ['repo:acme/*'])).toEqual(['repo:evil/x']);
    expect(scopesWithin([], [])).toBe(true);
  });
});

describe('JSON pointers', () => {
  it('resolves members, escapes and array indices', () => {
    const doc = { a: { 'b/c': [10, { '~d': 'x' }] } };
    expect(resolvePointer(doc, '/a/b~1c/1/~0d')).toEqual({ found: true, value: 'x' });
    expect(resolvePointer(doc, '/a/b~1c/2')).toEqual({ found: false });
    expect(resolvePointer(doc, '/a/b~1c/01')).toEqual({ found: false });
  });
  it('never follows inherited members', () => {
    expect(resolvePointer({}, '/constructor')).toEqual({ found: false });
    expect(resolvePointer({}, '/__proto__')).toEqual({ found: false });
  });
  it('accepts only pointers starting with "/" and with valid escapes', () => {
    expect(isJsonPointer('/a')).toBe(true);
    expect(isJsonPointer('a')).toBe(false);
    expect(isJsonPointer('')).toBe(false);
    expect(isJsonPointer('/a~2')).toBe(false);
  });
});

describe('rejections', () => {
  it('are tagged values, distinct from event lists', () => {
    const rejection = reject('revision_conflict', { currentRevision: 2 });
    expect(rejection).toEqual({ rejected: true, code: 'revision_conflict', currentRevision: 2 });
    expect(isRejection(rejection)).toBe(true);
    expect(isRejection([])).toBe(false);
  });
});
