import { FieldReader } from '../shared/fields.js';
import { COALESCE_BOUNDS, type CoalesceRule, validateCoalesceRule } from './coalesce-rule.js';
import { coalesceTargetOf } from './coalesce-target.js';
import { addMember, initialCoalesceState, isDue, MAX_COALESCE_MEMBERS, openGroup } from './index.js';

const RULES: CoalesceRule[] = [
  {
    match: { pointer: '/type', equals: 'health.sample' },
    mode: 'latest',
    windowMs: 1000,
    resourcePointer: '/host',
    neverCoalesce: { pointer: '/action', in: ['revoke', 'stop'] },
  },
  {
    match: { pointer: '/type', equals: 'tick' },
    mode: 'latest',
    windowMs: 500,
    resourcePointer: null,
    neverCoalesce: null,
  },
];
const of = (input: unknown) => ({ tenant: 'acme', triggerId: 't-1', missionId: 'm-1', input });

describe('DD-5 coalescing rules', () => {
  it('DD-5 the first matching rule groups per resource; another resource is another stream', () => {
    const h1 = coalesceTargetOf(RULES, of({ type: 'health.sample', host: 'h1' }));
    const h2 = coalesceTargetOf(RULES, of({ type: 'health.sample', host: 'h2' }));
    expect(h1).toMatchObject({ rule: 0, windowMs: 1000, resource: 'h1' });
    expect(h2!.streamId).not.toBe(h1!.streamId);
    expect(coalesceTargetOf(RULES, of({ type: 'tick' }))).toMatchObject({ rule: 1, resource: null });
  });

  it('DD-5 hostile: any rule’s neverCoalesce, a guard fault or an unusable resource decides the Occurrence alone', () => {
    expect(coalesceTargetOf(RULES, of({ type: 'health.sample', host: 'h1', action: 'revoke' }))).toBeNull();
    // neverCoalesce of rule 0 also protects what rule 1 would group.
    expect(coalesceTargetOf(RULES, of({ type: 'tick', action: 'stop' }))).toBeNull();
    // A pointer through a scalar is a fault, in neverCoalesce or in match: never absorbed.
    const faulty: CoalesceRule[] = [{ ...RULES[0]!, neverCoalesce: { pointer: '/meta/action', equals: 'revoke' } }];
    expect(coalesceTargetOf(faulty, of({ type: 'health.sample', host: 'h1', meta: 'scalar' }))).toBeNull();
    expect(coalesceTargetOf(faulty, of({ type: 'health.sample', host: 'h1', meta: {} }))).not.toBeNull();
    const faultyMatch: CoalesceRule[] = [{ ...RULES[0]!, match: { pointer: '/n', gt: 1 } }];
    expect(coalesceTargetOf(faultyMatch, of({ n: 'not a number', host: 'h1' }))).toBeNull();
    expect(coalesceTargetOf(RULES, of('not an object'))).toBeNull();
    expect(coalesceTargetOf(RULES, of({ type: 'health.sample' }))).toBeNull();
    expect(coalesceTargetOf(RULES, of({ type: 'health.sample', host: { nested: true } }))).toBeNull();
    expect(coalesceTargetOf(RULES, of({ type: 'deploy', host: 'h1' }))).toBeNull();
    expect(coalesceTargetOf([], of({ type: 'health.sample', host: 'h1' }))).toBeNull();
  });

  it('DD-5 a forged payload time plays no part: the window counts from the acceptance of the first member', () => {
    const member = { occurrenceId: 'o-1', streamId: 's-1', acceptedAt: '2026-03-01T10:00:00.000Z' };
    const opened = openGroup(
      {
        tenant: 'acme',
        triggerId: 't-1',
        missionId: 'm-1',
        rule: 0,
        resource: 'h1',
        windowMs: 1000,
        member,
        revision: -1,
        at: member.acceptedAt,
      },
      initialCoalesceState,
    );
    expect(opened.data.closesAt).toBe('2026-03-01T10:00:01.000Z');
    const open = opened.data.state.open!;
    expect(isDue(open, '2026-03-01T10:00:00.999Z')).toBe(false);
    expect(isDue(open, '2026-03-01T10:00:01.000Z')).toBe(true);
    expect(isDue({ ...open, size: MAX_COALESCE_MEMBERS }, '2026-03-01T10:00:00.000Z')).toBe(true);
    expect(() =>
      addMember(
        'acme',
        { ...member, occurrenceId: 'o-2', acceptedAt: '2026-03-01T10:00:02.000Z' },
        member.acceptedAt,
        opened.data.state,
      ),
    ).toThrow();
  });

  it('DD-5 validation bounds windowMs and the rule grammar (422 pointers)', () => {
    const read = new FieldReader();
    validateCoalesceRule(
      read,
      { match: { pointer: '/t', matches: 'x' }, mode: 'first', windowMs: COALESCE_BOUNDS.maxWindowMs + 1, extra: 1 },
      '/coalesce/0',
    );
    expect(read.errors.map((e) => e.pointer)).toEqual(
      expect.arrayContaining([
        '/coalesce/0/extra',
        '/coalesce/0/match/matches',
        '/coalesce/0/mode',
        '/coalesce/0/windowMs',
      ]),
    );
    const ok = new FieldReader();
    expect(
      validateCoalesceRule(ok, { match: { pointer: '/t', equals: 'x' }, mode: 'latest', windowMs: 1 }, '/coalesce/0'),
    ).toEqual({
      match: { pointer: '/t', equals: 'x' },
      mode: 'latest',
      windowMs: 1,
      resourcePointer: null,
      neverCoalesce: null,
    });
    expect(ok.errors).toEqual([]);
  });
});
