import { evaluateGuard } from './evaluate-guard.js';
import type { GuardClause } from './guard-clause.js';

const pr = {
  action: 'opened',
  number: 42,
  draft: false,
  title: 'fix: overflow',
  labels: ['bug', 'p1'],
  pull_request: { merged: null, head: { ref: 'main' } },
  weird: { 'a/b': 1, 'm~n': 2 },
};

const outcome = (guard: GuardClause, input: unknown = pr) => evaluateGuard(guard, input);
const result = (guard: GuardClause, input: unknown = pr) => outcome(guard, input).result;

describe('BA-2 guard evaluation', () => {
  describe('given a payload with the value present', () => {
    it('equals compares JSON values structurally, objects and arrays included', () => {
      expect(result({ pointer: '/action', equals: 'opened' })).toBe('true');
      expect(result({ pointer: '/action', equals: 'closed' })).toBe('false');
      expect(result({ pointer: '/labels', equals: ['bug', 'p1'] })).toBe('true');
      expect(result({ pointer: '/labels', equals: ['p1', 'bug'] })).toBe('false');
      expect(result({ pointer: '/pull_request/head', equals: { ref: 'main' } })).toBe('true');
      expect(result({ pointer: '/number', equals: '42' })).toBe('false');
    });
    it('in holds when one listed value equals it', () => {
      expect(result({ pointer: '/action', in: ['opened', 'reopened'] })).toBe('true');
      expect(result({ pointer: '/action', in: ['closed'] })).toBe('false');
      expect(result({ pointer: '/action', in: [] })).toBe('false');
    });
    it('prefix tests a string', () => {
      expect(result({ pointer: '/title', prefix: 'fix:' })).toBe('true');
      expect(result({ pointer: '/title', prefix: 'feat:' })).toBe('false');
    });
    it('gt, gte, lt and lte compare numbers', () => {
      expect(result({ pointer: '/number', gt: 41 })).toBe('true');
      expect(result({ pointer: '/number', gt: 42 })).toBe('false');
      expect(result({ pointer: '/number', gte: 42 })).toBe('true');
      expect(result({ pointer: '/number', lt: 42 })).toBe('false');
      expect(result({ pointer: '/number', lte: 42 })).toBe('true');
    });
    it('exists is true for a present value, null included', () => {
      expect(result({ pointer: '/pull_request/merged', exists: true })).toBe('true');
      expect(result({ pointer: '/pull_request/merged', exists: false })).toBe('false');
    });
    it('pointers follow RFC 6901 escapes and array indexes', () => {
      expect(result({ pointer: '/weird/a~1b', equals: 1 })).toBe('true');
      expect(result({ pointer: '/weird/m~0n', equals: 2 })).toBe('true');
      expect(result({ pointer: '/labels/1', equals: 'p1' })).toBe('true');
    });
  });

  describe('given a payload without the value', () => {
    it('then exists:false holds and every other test is false, never a fault', () => {
      for (const guard of [
        { pointer: '/missing', equals: null },
        { pointer: '/missing', in: [null] },
        { pointer: '/missing', prefix: '' },
        { pointer: '/missing', gt: 0 },
        { pointer: '/missing', lte: 0 },
        { pointer: '/missing', exists: true },
        { pointer: '/labels/7', equals: 'bug' },
        { pointer: '/pull_request/nope/deeper', gt: 1 },
      ] as GuardClause[])
        expect(outcome(guard)).toEqual({ result: 'false', decidedBy: expect.objectContaining({ clause: '' }) });
      expect(result({ pointer: '/missing', exists: false })).toBe('true');
    });
  });

  describe('given a value of the wrong type (hostile: a string where gt expects a number)', () => {
    it('then gt, gte, lt and lte are faults, not false', () => {
      const input = { count: '10' };
      for (const test of ['gt', 'gte', 'lt', 'lte'])
        expect(outcome({ pointer: '/count', [test]: 5 } as GuardClause, input)).toEqual({
          result: 'fault',
          decidedBy: { clause: '', pointer: '/count', test },
          fault: 'not_a_number',
          found: 'string',
        });
    });
    it('then prefix on a non-string is a fault', () =>
      expect(outcome({ pointer: '/number', prefix: '4' })).toMatchObject({
        result: 'fault',
        fault: 'not_a_string',
        found: 'number',
      }));
    it('then a null is not a number either', () =>
      expect(outcome({ pointer: '/pull_request/merged', gt: 0 })).toMatchObject({ result: 'fault', found: 'null' }));
  });

  describe('given a pointer through a non-object', () => {
    it('then every test is a fault naming where the walk stopped, exists included', () => {
      for (const guard of [
        { pointer: '/action/length', exists: false },
        { pointer: '/action/length', equals: 6 },
        { pointer: '/number/0', exists: true },
      ] as GuardClause[])
        expect(outcome(guard)).toMatchObject({ result: 'fault', fault: 'through_non_object' });
      expect(outcome({ pointer: '/pull_request/merged/at', exists: true })).toMatchObject({
        fault: 'through_non_object',
        at: '/pull_request/merged',
        found: 'null',
      });
    });
    it('then a member name on an array is a fault', () =>
      expect(outcome({ pointer: '/labels/first', equals: 'bug' })).toMatchObject({
        result: 'fault',
        fault: 'not_an_index',
        at: '/labels',
      }));
    it('then an input that is not an object at all faults the same way', () =>
      expect(result({ pointer: '/a', exists: false }, 'just a string')).toBe('fault'));
  });

  describe('given combinators', () => {
    const opened = { pointer: '/action', equals: 'opened' };
    const draft = { pointer: '/draft', equals: true };
    const hostile = { pointer: '/title', gt: 1 };
    it('all is the first false, naming that clause', () =>
      expect(outcome({ all: [opened, draft] })).toEqual({
        result: 'false',
        decidedBy: { clause: '/all/1', pointer: '/draft', test: 'equals' },
      }));
    it('all of true clauses is true', () => expect(result({ all: [opened, { not: draft }] })).toBe('true'));
    it('any is the first true; none true is false, decided by the any itself', () => {
      expect(outcome({ any: [draft, opened] })).toMatchObject({ result: 'true', decidedBy: { clause: '/any/1' } });
      expect(outcome({ any: [draft, { pointer: '/action', equals: 'x' }] })).toEqual({
        result: 'false',
        decidedBy: { clause: '' },
      });
    });
    it('not negates and names itself', () => {
      expect(outcome({ not: opened })).toEqual({ result: 'false', decidedBy: { clause: '' } });
      expect(outcome({ all: [{ not: draft }, { not: opened }] })).toEqual({
        result: 'false',
        decidedBy: { clause: '/all/1' },
      });
    });
    it('a fault anywhere decides, whatever the order, so short-circuiting never hides it', () => {
      expect(outcome({ all: [draft, hostile] })).toMatchObject({ result: 'fault', decidedBy: { clause: '/all/1' } });
      expect(outcome({ any: [opened, hostile] })).toMatchObject({ result: 'fault', decidedBy: { clause: '/any/1' } });
      expect(outcome({ not: hostile })).toMatchObject({ result: 'fault', decidedBy: { clause: '/not' } });
    });
    it('an any whose nested clauses all fail is decided by the any', () =>
      expect(outcome({ any: [draft, { all: [opened, { pointer: '/number', lt: 10 }] }] })).toMatchObject({
        result: 'false',
        decidedBy: { clause: '' },
      }));
    it('the deepest deciding clause is named', () =>
      expect(outcome({ all: [opened, { all: [opened, { pointer: '/number', lt: 10 }] }] })).toEqual({
        result: 'false',
        decidedBy: { clause: '/all/1/all/1', pointer: '/number', test: 'lt' },
      }));
  });

  describe('given a malformed stored clause (defence in depth: never a throw)', () => {
    it('then it is a fault', () => {
      expect(result(null as unknown as GuardClause)).toBe('fault');
      expect(result({ pointer: '/a' } as unknown as GuardClause)).toBe('fault');
      expect(result({ all: [42] } as unknown as GuardClause)).toBe('fault');
    });
  });

  describe('given a payload trying to reach the prototype', () => {
    it('then only own members are found', () => {
      expect(result({ pointer: '/__proto__', exists: true }, {})).toBe('false');
      expect(result({ pointer: '/constructor', exists: true }, {})).toBe('false');
      expect(result({ pointer: '/__proto__/x', equals: 1 }, JSON.parse('{"__proto__": {"x": 1}}'))).toBe('true');
    });
  });
});
