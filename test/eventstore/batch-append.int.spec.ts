import { eventStoreMigrations } from '../../src/adapters/eventstore/sql/migrations.js';
import { appendBatch, BatchConflict } from '../../src/adapters/eventstore/sql/sql-batch-append.js';
import type { SqlClient } from '../../src/projections/sql-client.js';
import { SqlEventStore } from '../../src/adapters/eventstore/sql/sql-event-store.js';
import { verifyStreamChain } from '../../src/domain/audit/verify-chain.js';
import { dropSchema, freshPglite, freshPostgres } from '../support/databases.js';

const event = (n: number) => ({ type: 'Noted', data: { n }, metadata: { tenant: 'acme' } });

describe.each(['postgres', 'pglite'] as const)('AU-2 SC-3 multi-stream batch append (%s)', (kind) => {
  let sql: SqlClient;
  let store: SqlEventStore;
  let schema: string | null = null;

  beforeAll(async () => {
    if (kind === 'postgres') ({ sql, schema } = await freshPostgres(eventStoreMigrations, { max: 4 }));
    else sql = await freshPglite(eventStoreMigrations);
    store = new SqlEventStore(sql);
  });
  afterAll(async () => {
    await sql?.close();
    if (schema) await dropSchema(schema);
  });

  it('appends new and existing streams in one statement with an unbroken hash chain per stream', async () => {
    await store.append('s-old', [event(0)], 'no_stream');
    const recorded = await appendBatch(sql, [
      { streamId: 's-new', events: [event(1), event(2)], expected: 'no_stream' },
      { streamId: 's-old', events: [event(3)], expected: 0 },
    ]);
    expect(recorded.map((r) => r.map((e) => [e.streamId, e.revision]))).toEqual([
      [
        ['s-new', 0],
        ['s-new', 1],
      ],
      [['s-old', 1]],
    ]);
    for (const stream of ['s-new', 's-old'])
      expect(verifyStreamChain(await store.readStream(stream, { raw: true }))).toEqual([]);
    // the single-stream append continues the chain the batch wrote
    await store.append('s-new', [event(4)], 1);
    expect(verifyStreamChain(await store.readStream('s-new', { raw: true }))).toEqual([]);
  });

  it('appends a batch of new one-event streams (the flat statement) with the same chain and positions in stream order', async () => {
    const streams = ['s-flat-b', 's-flat-a', 's-flat-c'];
    const recorded = await appendBatch(
      sql,
      streams.map((streamId, i) => ({ streamId, events: [event(i)], expected: 'no_stream' as const })),
    );
    expect(recorded.map(([e]) => [e!.streamId, e!.revision])).toEqual(streams.map((s) => [s, 0]));
    const read = await Promise.all(streams.map((s) => store.readStream(s, { raw: true })));
    for (const [i, events] of read.entries()) {
      expect(verifyStreamChain(events)).toEqual([]);
      expect(events.map((e) => [e.position, e.prevHash, e.data])).toEqual([
        [recorded[i]![0]!.position, null, { n: i }],
      ]);
    }
    // written in stream-id order (racing batches lock in the same order)
    expect([...recorded].sort((a, b) => a[0]!.position - b[0]!.position).map(([e]) => e!.streamId)).toEqual([
      's-flat-a',
      's-flat-b',
      's-flat-c',
    ]);
    await store.append('s-flat-a', [event(9)], 0);
    expect(verifyStreamChain(await store.readStream('s-flat-a', { raw: true }))).toEqual([]);
  });

  it('writes nothing when one stream already exists (no_stream) or is ahead of its expected revision', async () => {
    await store.append('s-taken', [event(0)], 'no_stream');
    await expect(
      appendBatch(sql, [
        { streamId: 's-a', events: [event(1)], expected: 'no_stream' },
        { streamId: 's-taken', events: [event(2)], expected: 'no_stream' },
      ]),
    ).rejects.toBeInstanceOf(BatchConflict);
    await expect(
      appendBatch(sql, [
        { streamId: 's-b', events: [event(1)], expected: 'no_stream' },
        { streamId: 's-taken', events: [event(2)], expected: 0 },
      ]),
    ).resolves.toHaveLength(2);
    await expect(
      appendBatch(sql, [
        { streamId: 's-c', events: [event(1)], expected: 'no_stream' },
        { streamId: 's-taken', events: [event(3)], expected: 0 },
      ]),
    ).rejects.toBeInstanceOf(BatchConflict);
    expect(await store.readStream('s-a')).toEqual([]);
    expect(await store.readStream('s-c')).toEqual([]);
  });

  it('writes nothing when a stream is behind its expected revision', async () => {
    await expect(
      appendBatch(sql, [
        { streamId: 's-d', events: [event(1)], expected: 'no_stream' },
        { streamId: 's-short', events: [event(2)], expected: 3 },
      ]),
    ).rejects.toBeInstanceOf(BatchConflict);
    expect(await store.readStream('s-d')).toEqual([]);
  });
});
