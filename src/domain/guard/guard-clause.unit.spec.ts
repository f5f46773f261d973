import { FieldReader } from '../shared/fields.js';
import { GUARD_BOUNDS, validateGuard } from './guard-clause.js';

function validate(guard: unknown) {
  const read = new FieldReader();
  const value = validateGuard(read, guard, '/guard');
  return { value, pointers: read.errors.map((e) => e.pointer) };
}

const nested = (depth: number): unknown => (depth === 1 ? { pointer: '/a', exists: true } : { not: nested(depth - 1) });

describe('BA-2 guard definitions are validated and bounded (422 invalid_definition)', () => {
  describe('given every test of the grammar', () => {
    it('then each is accepted as written', () => {
      const guard = {
        all: [
          { pointer: '/a', equals: { x: [1, null] } },
          { pointer: '/a', in: ['x', 1] },
          { any: [{ pointer: '/b', exists: false }, { not: { pointer: '/c', prefix: 'refs/' } }] },
          { pointer: '/n', gt: 1 },
          { pointer: '/n', gte: 1.5 },
          { pointer: '/n', lt: -1 },
          { pointer: '/n', lte: 0 },
        ],
      };
      expect(validate(guard)).toEqual({ value: guard, pointers: [] });
    });
  });

  describe('given a clause outside the grammar', () => {
    it('then a regex or code test is refused by name', () =>
      expect(validate({ pointer: '/a', matches: 'x.*' }).pointers).toEqual(['/guard/matches']));
    it('then a leaf with two tests, none, or no pointer is refused', () => {
      expect(validate({ pointer: '/a', equals: 1, gt: 0 }).pointers).toEqual(['/guard']);
      expect(validate({ pointer: '/a' }).pointers).toEqual(['/guard']);
      expect(validate({ equals: 1 }).pointers).toEqual(['/guard']);
    });
    it('then typed literals must have their type', () =>
      expect(
        validate({
          all: [
            { pointer: '/a', gt: '5' },
            { pointer: '/a', prefix: 5 },
            { pointer: '/a', exists: 'yes' },
            { pointer: '/a', in: 'x' },
            { pointer: 'a', equals: 1 },
          ],
        }).pointers,
      ).toEqual([
        '/guard/all/0/gt',
        '/guard/all/1/prefix',
        '/guard/all/2/exists',
        '/guard/all/3/in',
        '/guard/all/4/pointer',
      ]));
    it('then empty lists and non-object clauses are refused', () => {
      expect(validate({ all: [] }).pointers).toEqual(['/guard/all']);
      expect(validate({ any: [1] }).pointers).toEqual(['/guard/any/0']);
      expect(validate('x').pointers).toEqual(['/guard']);
    });
  });

  describe('given a guard past its bounds', () => {
    it(`then nesting deeper than ${GUARD_BOUNDS.maxDepth} is refused where it crosses`, () => {
      expect(validate(nested(GUARD_BOUNDS.maxDepth)).pointers).toEqual([]);
      expect(validate(nested(GUARD_BOUNDS.maxDepth + 1)).pointers).toEqual([
        `/guard${'/not'.repeat(GUARD_BOUNDS.maxDepth)}`,
      ]);
    });
    it(`then more than ${GUARD_BOUNDS.maxClauses} clauses in all is refused once`, () => {
      const leaves = (n: number) => Array.from({ length: n }, () => ({ pointer: '/a', exists: true }));
      const wide = { all: [{ all: leaves(31) }, { all: leaves(31) }] }; // 65 clauses
      expect(validate(wide).pointers).toEqual(['/guard/all/1/all/30']);
      expect(validate({ all: [{ all: leaves(31) }, { all: leaves(30) }] }).pointers).toEqual([]);
    });
    it(`then a list of more than ${GUARD_BOUNDS.maxListItems} clauses is refused`, () =>
      expect(
        validate({
          any: Array.from({ length: GUARD_BOUNDS.maxListItems + 1 }, () => ({ pointer: '/a', exists: true })),
        }).pointers,
      ).toEqual(['/guard/any']));
    it('then an oversized literal or in list is refused', () => {
      expect(validate({ pointer: '/a', equals: 'x'.repeat(GUARD_BOUNDS.maxValueChars) }).pointers).toEqual([
        '/guard/equals',
      ]);
      expect(
        validate({ pointer: '/a', in: Array.from({ length: GUARD_BOUNDS.maxInItems + 1 }, (_, i) => i) }).pointers,
      ).toEqual(['/guard/in']);
      expect(validate({ pointer: '/a', gt: Infinity }).pointers).toEqual(['/guard/gt']);
    });
  });
});
