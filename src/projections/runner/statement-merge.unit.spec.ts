import type { SqlQuery } from '../sql-client.js';
import { mergedScript } from './statement-merge.js';

const INSERT = `INSERT INTO t (id, n) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`;
const insert = (id: string, n: number): SqlQuery => ({ text: INSERT, values: [id, n], touches: id });
const DELETE = `DELETE FROM t WHERE id = $1`;
const remove = (id: string): SqlQuery => ({ text: DELETE, values: [id], touches: id });

describe('OP-3 statement merge', () => {
  it('runs one-row INSERTs of one text as one multi-row VALUES, in order', () => {
    expect(mergedScript([insert('a', 1), insert('b', 2), insert('c', 3)])).toEqual([
      `INSERT INTO t (id, n) VALUES ('a', '1'), ('b', '2'), ('c', '3') ON CONFLICT (id) DO NOTHING`,
    ]);
  });

  it("keeps a row's statements in order: its second statement runs in the second wave", () => {
    // a's insert, then a's delete; b's insert comes after a's delete in the log but commutes with it.
    expect(mergedScript([insert('a', 1), remove('a'), insert('b', 2)])).toEqual([
      `INSERT INTO t (id, n) VALUES ('a', '1'), ('b', '2') ON CONFLICT (id) DO NOTHING`,
      `DELETE FROM t WHERE id = 'a'`,
    ]);
  });

  it('never moves anything across a statement that does not say which row it touches', () => {
    const wall: SqlQuery = { text: `INSERT INTO totals (n) SELECT count(*) FROM t`, values: [] };
    expect(mergedScript([insert('a', 1), wall, insert('b', 2), insert('c', 3)])).toEqual([
      `INSERT INTO t (id, n) VALUES ('a', '1') ON CONFLICT (id) DO NOTHING`,
      `INSERT INTO totals (n) SELECT count(*) FROM t`,
      `INSERT INTO t (id, n) VALUES ('b', '2'), ('c', '3') ON CONFLICT (id) DO NOTHING`,
    ]);
  });

  it('leaves alone what it cannot merge as written: parameters after VALUES, INSERT … SELECT, unlearnt UPDATEs', () => {
    const upsert = (id: string, n: number): SqlQuery => ({
      text: `INSERT INTO t (id, n) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET n = $2`,
      values: [id, n],
      touches: id,
    });
    const copy = (id: string): SqlQuery => ({
      text: `INSERT INTO t (id, n) SELECT $1, n FROM u`,
      values: [id],
      touches: id,
    });
    const update = (id: string): SqlQuery => ({
      text: `UPDATE t SET n = n + 1 WHERE id = $1`,
      values: [id],
      touches: id,
    });
    expect(mergedScript([upsert('a', 1), upsert('b', 2)])).toHaveLength(2);
    expect(mergedScript([copy('a'), copy('b')])).toHaveLength(2);
    expect(mergedScript([update('a'), update('b')])).toEqual([
      `UPDATE t SET n = n + 1 WHERE id = 'a'`,
      `UPDATE t SET n = n + 1 WHERE id = 'b'`,
    ]);
  });

  it('fails a statement short of a value as running it alone would', () => {
    expect(() => mergedScript([insert('a', 1), { text: INSERT, values: ['b'], touches: 'b' }])).toThrow(
      'statement has no value for $2',
    );
  });
});
