import { randomUUID } from 'node:crypto';
import { eventStoreMigrations } from '../../src/adapters/eventstore/sql/migrations.js';
import type { SqlClient } from '../../src/projections/sql-client.js';
import { SqlEventStore } from '../../src/adapters/eventstore/sql/sql-event-store.js';
import { verifyStreamChain } from '../../src/domain/audit/verify-chain.js';
import { eventContent } from '../../src/domain/shared/event-hash.js';
import { dropSchema, freshPglite, freshPostgres } from '../support/databases.js';

const event = (n: number) => ({ type: 'Noted', data: { n }, metadata: { tenant: 'acme' } });
const prepared = (streamId: string, n: number) => ({
  streamId,
  revision: 0,
  content: eventContent({ id: randomUUID(), streamId, revision: 0, schemaVersion: 1, ...event(n) }),
});

describe.each(['postgres', 'pglite'] as const)('SC-3 appends inside the caller transaction (%s)', (kind) => {
  let sql: SqlClient;
  let store: SqlEventStore;
  let schema: string | null = null;

  beforeAll(async () => {
    if (kind === 'postgres') ({ sql, schema } = await freshPostgres(eventStoreMigrations, { max: 4 }));
    else sql = await freshPglite(eventStoreMigrations);
    store = new SqlEventStore(sql);
    await sql.query('CREATE TABLE caller_rows (id text PRIMARY KEY)');
  });
  afterAll(async () => {
    await sql?.close();
    if (schema) await dropSchema(schema);
  });

  it('commits streams and prepared events with the caller writes, positions as recorded, chains unbroken', async () => {
    await store.append('t-old', [event(0)], 'no_stream');
    const result = await sql.transaction(async (tx) => {
      const inTx = store.inTransaction(tx);
      const appended = await inTx.appendBatch(
        [
          { streamId: 't-new', events: [event(1)], expected: 'no_stream' },
          { streamId: 't-old', events: [event(2), event(3)], expected: 0 },
        ],
        [prepared('t-prepared', 4)],
      );
      await tx.query("INSERT INTO caller_rows VALUES ('committed')");
      // reads inside the transaction see the uncommitted append
      expect(await inTx.readStream('t-prepared')).toHaveLength(1);
      return appended;
    });
    expect(result.streams.map((s) => s.map((e) => [e.streamId, e.revision]))).toEqual([
      [['t-new', 0]],
      [
        ['t-old', 1],
        ['t-old', 2],
      ],
    ]);
    const reported = [
      ...result.streams.flat().map((e) => [e.streamId, e.revision, e.position]),
      ['t-prepared', 0, result.prepared[0]],
    ];
    const stored = [];
    for (const stream of ['t-new', 't-old', 't-prepared']) {
      const read = await store.readStream(stream, { raw: true });
      expect(verifyStreamChain(read)).toEqual([]);
      stored.push(
        ...read
          .filter((e) => e.streamId !== 't-old' || e.revision > 0)
          .map((e) => [e.streamId, e.revision, e.position]),
      );
    }
    expect(stored).toEqual(reported);
    expect((await sql.query('SELECT id FROM caller_rows')).rows).toEqual([{ id: 'committed' }]);
  });

  it('PO-2 inBatchOrder writes new streams in the order given (a poll page), then the others; stream-id order otherwise', async () => {
    // names whose sorted order is the reverse of the batch's: a sorted insert cannot pass by chance
    const names = Array.from({ length: 12 }, (_, i) => `t-page-${String(99 - i).padStart(2, '0')}`);
    await store.append('t-poll', [event(0)], 'no_stream');
    const positions = (streams: Array<Array<{ streamId: string; position: number }>>) =>
      streams.map((s) => s[s.length - 1]!);
    const ordered = await sql.transaction((tx) =>
      store
        .inTransaction(tx)
        .appendBatch(
          [
            ...names.map((streamId, n) => ({ streamId, events: [event(n)], expected: 'no_stream' as const })),
            { streamId: 't-poll', events: [event(99)], expected: 0 },
          ],
          [],
          { inBatchOrder: true },
        ),
    );
    const inOrder = positions(ordered.streams).map((e) => e.position);
    expect(inOrder).toEqual([...inOrder].sort((a, b) => a - b));
    const sorted = await sql.transaction((tx) =>
      store
        .inTransaction(tx)
        .appendBatch(
          names.map((streamId, n) => ({ streamId: `${streamId}-x`, events: [event(n)], expected: 'no_stream' })),
        ),
    );
    const bySort = positions(sorted.streams).map((e) => e.position);
    expect(bySort).toEqual([...bySort].sort((a, b) => b - a));
  });

  it('PO-2 appendStreams inBatchOrder: one statement writes the page in the order given, then the poll event; a conflict writes nothing', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `s-page-${String(99 - i).padStart(2, '0')}`);
    await store.append('s-poll', [event(0)], 'no_stream');
    const page = (poll: number) => [
      ...names.map((streamId, n) => ({ streamId, events: [event(n)], expected: 'no_stream' as const })),
      { streamId: 's-poll', events: [event(99)], expected: poll },
    ];
    const positions = await store.appendStreams(page(0), { inBatchOrder: true });
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    for (const streamId of [...names, 's-poll'])
      expect(verifyStreamChain(await store.readStream(streamId, { raw: true }))).toEqual([]);

    // the same page again at a poll revision that moved: WrongExpectedRevision, and not one Occurrence more
    const fresh = names.map((name) => `${name}-again`);
    const again = page(0).map((a, i) => (i < fresh.length ? { ...a, streamId: fresh[i]! } : a));
    await expect(store.appendStreams(again, { inBatchOrder: true })).rejects.toEqual(
      expect.objectContaining({ name: 'WrongExpectedRevision', streamId: 's-poll' }),
    );
    for (const streamId of fresh) expect(await store.readStream(streamId)).toEqual([]);
  });

  it('rolls back with the caller: nothing appended when the caller throws after the append', async () => {
    await expect(
      sql.transaction(async (tx) => {
        await store
          .inTransaction(tx)
          .appendBatch([{ streamId: 't-rolled', events: [event(5)], expected: 'no_stream' }]);
        throw new Error('caller changed its mind');
      }),
    ).rejects.toThrow('caller changed its mind');
    expect(await store.readStream('t-rolled')).toEqual([]);
  });

  it('throws WrongExpectedRevision naming the stream that moved, and appends nothing', async () => {
    await store.append('t-moved', [event(6)], 'no_stream');
    await expect(
      sql.transaction((tx) =>
        store.inTransaction(tx).appendBatch(
          [
            { streamId: 't-fresh', events: [event(7)], expected: 'no_stream' },
            { streamId: 't-moved', events: [event(8)], expected: 'no_stream' },
          ],
          [prepared('t-fresh-prepared', 9)],
        ),
      ),
    ).rejects.toEqual(expect.objectContaining({ name: 'WrongExpectedRevision', streamId: 't-moved', actual: 0 }));
    for (const stream of ['t-fresh', 't-fresh-prepared']) expect(await store.readStream(stream)).toEqual([]);
    expect(await store.readStream('t-moved')).toHaveLength(1);
  });

  it('OP-3 an unflushed transaction (read-model folds) commits without waiting for its WAL flush; others wait', async () => {
    const setting = (tx: { query: SqlClient['query'] }) =>
      tx
        .query<{ value: string }>("SELECT current_setting('synchronous_commit') AS value")
        .then((r) => r.rows[0]!.value);
    expect(await sql.transaction(setting, { unflushed: true })).toBe('off');
    expect(await sql.transaction(setting)).toBe('on');
    await sql.transaction((tx) => tx.query("INSERT INTO caller_rows VALUES ('unflushed')"), { unflushed: true });
    expect((await sql.query("SELECT id FROM caller_rows WHERE id = 'unflushed'")).rows).toHaveLength(1);
    expect(await setting(sql)).toBe('on'); // SET LOCAL: the pooled connection goes back as it was
  });
});
