import fc from 'fast-check';
import { escapeLiteral } from 'pg';
import { inline, quoteLiteral, runStatements } from './statement-script.js';

describe('statements inlined into one script (projection batches)', () => {
  it('puts each value where its $n stands, telling $1 from $10', () => {
    const values = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];
    expect(inline({ text: 'SELECT $10, $1, $2', values })).toBe(`SELECT 'j', 'a', 'b'`);
  });

  it('quotes every value, so PostgreSQL types it from context as it types an untyped parameter', () => {
    expect(
      inline({
        text: 'UPDATE t SET n = $1, b = $2, d = $3, j = $4::jsonb, x = $5',
        values: [42, true, new Date('2026-01-02T03:04:05.006Z'), { k: "it's" }, null],
      }),
    ).toBe(`UPDATE t SET n = '42', b = 'true', d = '2026-01-02T03:04:05.006Z', j = '{"k":"it''s"}'::jsonb, x = NULL`);
  });

  it('escapes hostile strings: quotes and backslashes cannot end the literal', () => {
    const hostile = `x'); DROP TABLE events; --\\`;
    const sql = inline({ text: 'SELECT $1', values: [hostile] });
    expect(sql).toBe(`SELECT  E'x''); DROP TABLE events; --\\\\'`);
  });

  it('quotes any string exactly as pg escapeLiteral does (quotes, backslashes, any unicode)', () => {
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 200 }),
      fc.string({ unit: fc.constantFrom("'", '\\', 'a', 'é', '\n', '"', 'E', '$'), maxLength: 50 }),
    );
    fc.assert(
      fc.property(text, (value) => quoteLiteral(value) === escapeLiteral(value)),
      { numRuns: 2_000 },
    );
    expect(quoteLiteral(`it's a \\ path`)).toBe(` E'it''s a \\\\ path'`);
  });

  it('leaves $n inside quoted literals and identifiers alone, including E-strings with escaped quotes', () => {
    expect(inline({ text: `SELECT '$1', "$2", E'\\'$1', $1`, values: ['v', 'w'] })).toBe(
      `SELECT '$1', "$2", E'\\'$1', 'v'`,
    );
    expect(inline({ text: `SELECT 'it''s $1', $2`, values: ['v', 'w'] })).toBe(`SELECT 'it''s $1', 'w'`);
  });

  it("inlines each call's own values when the same text comes again (the cut text is reused, not the values)", () => {
    const text = `UPDATE t SET a = $1, b = 'x$2' WHERE id = $2`;
    expect(inline({ text, values: ['one', 1] })).toBe(`UPDATE t SET a = 'one', b = 'x$2' WHERE id = '1'`);
    expect(inline({ text, values: ['two', 2] })).toBe(`UPDATE t SET a = 'two', b = 'x$2' WHERE id = '2'`);
    expect(() => inline({ text, values: ['three'] })).toThrow('no value for $2');
  });

  it('refuses a statement that names a value it was not given', () => {
    expect(() => inline({ text: 'SELECT $2', values: ['only one'] })).toThrow('no value for $2');
  });

  it('runs statements one by one on an executor that cannot take a script, in order', async () => {
    const seen: string[] = [];
    await runStatements(
      { query: async (q) => (seen.push(typeof q === 'string' ? q : q.text), { rows: [], rowCount: 0 }) },
      [{ text: 'A' }, { text: 'B' }],
    );
    expect(seen).toEqual(['A', 'B']);
  });

  it('sends one script when the executor can run one', async () => {
    const scripts: string[] = [];
    await runStatements({ query: async () => ({ rows: [], rowCount: 0 }), exec: async (s) => void scripts.push(s) }, [
      { text: 'SELECT $1', values: [1] },
      { text: 'SELECT 2' },
    ]);
    expect(scripts).toEqual([`SELECT '1';\nSELECT 2`]);
  });
});
