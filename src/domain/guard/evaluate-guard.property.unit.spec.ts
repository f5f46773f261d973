import fc from 'fast-check';
import { FieldReader } from '../shared/fields.js';
import { evaluateGuard } from './evaluate-guard.js';
import { type GuardClause, validateGuard } from './guard-clause.js';

/** Pointers over a small alphabet, so generated payloads and guards often meet (and often miss). */
const token = fc.constantFrom('a', 'b', '0', '1', 'x~1y', '__proto__', '');
const pointer = fc.array(token, { minLength: 1, maxLength: 4 }).map((tokens) => `/${tokens.join('/')}`);
const key = fc.constantFrom('a', 'b', '0', '1', 'x/y', '__proto__', '');
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer({ min: -3, max: 3 }),
    fc.string({ maxLength: 4 }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 3 }),
  ),
})).value;

const leaf: fc.Arbitrary<GuardClause> = fc.oneof(
  fc.record({ pointer, equals: json }),
  fc.record({ pointer, in: fc.array(json, { maxLength: 3 }) }),
  fc.record({ pointer, exists: fc.boolean() }),
  fc.record({ pointer, prefix: fc.string({ maxLength: 3 }) }),
  fc.record({ pointer, gt: fc.integer({ min: -3, max: 3 }) }),
  fc.record({ pointer, gte: fc.double({ noNaN: true, noDefaultInfinity: true }) }),
  fc.record({ pointer, lt: fc.integer({ min: -3, max: 3 }) }),
  fc.record({ pointer, lte: fc.integer({ min: -3, max: 3 }) }),
);
const clause: fc.Arbitrary<GuardClause> = fc.letrec((tie) => ({
  clause: fc.oneof(
    { depthSize: 'small', maxDepth: 6 },
    leaf,
    fc.record({ all: fc.array(tie('clause') as fc.Arbitrary<GuardClause>, { minLength: 1, maxLength: 4 }) }),
    fc.record({ any: fc.array(tie('clause') as fc.Arbitrary<GuardClause>, { minLength: 1, maxLength: 4 }) }),
    fc.record({ not: tie('clause') as fc.Arbitrary<GuardClause> }),
  ),
})).clause;

describe('BA-2 guard evaluation is total (property)', () => {
  it('over arbitrary JSON and arbitrary bounded clauses it never throws and answers true, false or a fault', () =>
    fc.assert(
      fc.property(clause, json, (guard, input) => {
        const outcome = evaluateGuard(guard, input);
        expect(['true', 'false', 'fault']).toContain(outcome.result);
        expect(typeof outcome.decidedBy.clause).toBe('string');
        // Deterministic: the same guard over the same input decides the same way.
        expect(evaluateGuard(guard, input)).toEqual(outcome);
      }),
      { numRuns: 2000 },
    ));

  it('faults dominate: reordering an all/any list changes which clause is named, never true/false/fault', () =>
    fc.assert(
      fc.property(fc.array(clause, { minLength: 1, maxLength: 4 }), json, (items, input) => {
        for (const kind of ['all', 'any'] as const) {
          const forward = evaluateGuard({ [kind]: items } as GuardClause, input).result;
          const backward = evaluateGuard({ [kind]: [...items].reverse() } as GuardClause, input).result;
          expect(backward).toBe(forward);
        }
      }),
    ));

  it('not flips true and false and keeps a fault', () =>
    fc.assert(
      fc.property(clause, json, (guard, input) => {
        const inner = evaluateGuard(guard, input).result;
        const negated = evaluateGuard({ not: guard }, input).result;
        expect(negated).toBe(inner === 'fault' ? 'fault' : inner === 'true' ? 'false' : 'true');
      }),
    ));

  it('arbitrary JSON offered as a guard is either refused by validation or evaluates without throwing', () =>
    fc.assert(
      fc.property(fc.oneof(json, clause as fc.Arbitrary<unknown>), json, (candidate, input) => {
        const read = new FieldReader();
        const validated = validateGuard(read, candidate, '/guard');
        if (validated === undefined) expect(read.errors.length).toBeGreaterThan(0);
        else expect(['true', 'false', 'fault']).toContain(evaluateGuard(validated, input).result);
      }),
      { numRuns: 1000 },
    ));
});
