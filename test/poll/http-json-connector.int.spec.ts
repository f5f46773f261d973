import { HttpJsonConnector } from '../../src/adapters/poll/http-json-connector.js';
import { payloadDigest } from '../../src/domain/occurrence/payload-digest.js';
import type { PollBinding } from '../../src/domain/trigger/trigger-blocks.js';
import { json, PollUpstream } from '../support/poll-upstream.js';

const MiB = 1_048_576;

describe('PO-1 PO-4 the http-json@1 connector against a real upstream', () => {
  let upstream: PollUpstream;
  const connector = new HttpJsonConnector();
  const binding = (path: string, extra: Partial<PollBinding> = {}): PollBinding => ({
    connector: 'http-json@1',
    url: upstream.url(path),
    everySeconds: 1,
    itemsPointer: '/data/items',
    idPointer: '/id',
    cursorParam: 'after',
    nextCursorPointer: '/next',
    onInvalidItem: 'quarantine',
    timeoutSeconds: 10,
    maxResponseBytes: MiB,
    schema: { required: [] },
    auth: null,
    ...extra,
  });

  beforeAll(async () => {
    upstream = await PollUpstream.start();
  });
  afterAll(async () => {
    await upstream?.close();
  });

  it('PO-1 GETs the url, adds ?<cursorParam>=<cursor> once a cursor exists, and reads items, ids and the next cursor by pointer', async () => {
    upstream.pages(
      '/paged',
      {
        '': { data: { items: [{ id: 'a' }, { id: 7 }] }, next: 'c1' },
        c1: { data: { items: [{ id: 'b', x: 1 }] }, next: null },
      },
      'after',
    );
    const first = await connector.fetch(binding('/paged'), null);
    expect(first).toEqual({
      ok: true,
      page: {
        items: [
          { index: 0, itemId: 'a', value: { id: 'a' }, problem: null, digest: payloadDigest({ id: 'a' }) },
          { index: 1, itemId: '7', value: { id: 7 }, problem: null, digest: payloadDigest({ id: 7 }) },
        ],
        nextCursor: 'c1',
      },
    });
    const second = await connector.fetch(binding('/paged'), 'c1');
    expect(second).toMatchObject({ ok: true, page: { items: [{ itemId: 'b' }], nextCursor: null } });
    const sent = upstream.requestsTo('/paged');
    expect(sent.map((r) => r.query.get('after'))).toEqual([null, 'c1']);
  });

  it('PO-2 bounds and validates item ids and the block schema per item, never failing the page for one item', async () => {
    upstream.on('/ids', (_, res) =>
      json(res, {
        data: {
          items: [
            { id: 'ok', kind: 'k' },
            { kind: 'k' },
            { id: { nested: true }, kind: 'k' },
            { id: 'x'.repeat(257), kind: 'k' },
            { id: 'bad\u0001id', kind: 'k' },
            { id: 1.5, kind: 'k' },
            { id: 'no-kind' },
            { id: 'nul', kind: 'a\u0000b' },
          ],
        },
      }),
    );
    const result = await connector.fetch(binding('/ids', { schema: { required: ['/kind'] } }), null);
    if (!result.ok) throw new Error(JSON.stringify(result));
    expect(result.page.items.map((i) => [i.itemId, i.problem === null])).toEqual([
      ['ok', true],
      [null, false],
      [null, false],
      [null, false],
      [null, false],
      [null, false],
      ['no-kind', false],
      ['nul', false],
    ]);
    expect(result.page.items[6]!.problem).toMatch(/required members: \/kind/);
  });

  it('PO-4 a non-2xx answer, a non-JSON body, a missing items array or a bad next cursor is a failure', async () => {
    upstream.on('/500', (_, res) => json(res, { error: 'boom' }, 500));
    upstream.on('/302', (_, res) => {
      res.statusCode = 302;
      res.setHeader('location', upstream.url('/paged'));
      res.end();
    });
    upstream.on('/html', (_, res) => res.end('<html>not json</html>'));
    upstream.on('/latin1', (_, res) => res.end(Buffer.from([0x7b, 0xff, 0x7d])));
    upstream.on('/no-items', (_, res) => json(res, { data: { items: 'nope' } }));
    upstream.on('/bad-cursor', (_, res) => json(res, { data: { items: [] }, next: { deep: 1 } }));
    const kinds = [];
    for (const path of ['/500', '/302', '/html', '/latin1', '/no-items', '/bad-cursor', '/missing-path'])
      kinds.push(await connector.fetch(binding(path), null));
    expect(kinds.map((k) => (k.ok ? 'ok' : k.failure.kind))).toEqual([
      'http_status',
      'http_status',
      'not_json',
      'not_json',
      'missing_items',
      'invalid_cursor',
      'http_status',
    ]);
  });

  it('PO-4 an answer slower than timeoutSeconds is a timeout, even when the headers came in time', async () => {
    upstream.on('/slow-headers', () => undefined);
    upstream.on('/slow-body', (_, res) => {
      res.setHeader('content-type', 'application/json');
      res.write('{"data":{"items":[');
    });
    const started = Date.now();
    const [headers, body] = await Promise.all([
      connector.fetch(binding('/slow-headers', { timeoutSeconds: 1 }), null),
      connector.fetch(binding('/slow-body', { timeoutSeconds: 1 }), null),
    ]);
    expect(headers).toMatchObject({ ok: false, failure: { kind: 'timeout' } });
    expect(body).toMatchObject({ ok: false, failure: { kind: 'timeout' } });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('PO-4 a 10 MiB answer is cut off past maxResponseBytes while it streams, declared length or not', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    let sentWhenClosed = -1;
    upstream.on('/huge-chunked', (_, res) => {
      res.setHeader('content-type', 'application/json');
      res.write('{"data":{"items":[]},"pad":"');
      const push = () => {
        while (sent < 10 * MiB && sentWhenClosed < 0) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', push);
        }
        if (sentWhenClosed < 0) res.end('"}');
      };
      res.on('close', () => (sentWhenClosed = sent));
      push();
    });
    upstream.on('/huge-declared', (_, res) => {
      res.setHeader('content-length', String(10 * MiB));
      res.write(chunk);
    });
    const chunked = await connector.fetch(binding('/huge-chunked'), null);
    expect(chunked).toMatchObject({ ok: false, failure: { kind: 'too_large' } });
    // the reader hung up early: the upstream never got to write all 10 MiB
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sentWhenClosed).toBeGreaterThan(0);
    expect(sentWhenClosed).toBeLessThan(10 * MiB);
    const declared = await connector.fetch(binding('/huge-declared'), null);
    expect(declared).toMatchObject({ ok: false, failure: { kind: 'too_large' } });
  });

  it('PO-4 an unreachable upstream is a network failure', async () => {
    const closed = await PollUpstream.start();
    const url = closed.url('/gone');
    await closed.close();
    const result = await connector.fetch({ ...binding('/x'), url }, null);
    expect(result).toMatchObject({ ok: false, failure: { kind: 'network' } });
  });

  it('PO-1 sends the bearer secret as Authorization and never to a redirect target', async () => {
    upstream.on('/auth', (_, res) => json(res, { data: { items: [] } }));
    upstream.on('/redirect', (_, res) => {
      res.statusCode = 302;
      res.setHeader('location', upstream.url('/auth'));
      res.end();
    });
    expect(await connector.fetch(binding('/auth'), null, { bearer: 'tok.en-1' })).toMatchObject({ ok: true });
    expect(await connector.fetch(binding('/auth'), null)).toMatchObject({ ok: true });
    expect(await connector.fetch(binding('/redirect'), null, { bearer: 'tok.en-2' })).toMatchObject({
      ok: false,
      failure: { kind: 'http_status' },
    });
    expect(upstream.requestsTo('/auth').map((r) => r.authorization)).toEqual(['Bearer tok.en-1', null]);
  });

  it('decision 7 a secret the HTTP library refuses is never quoted in the failure detail', async () => {
    // the API only takes RFC 6750 tokens; this one is as a corrupted store could hand back
    const bearer = 'leaked\nX-Injected: 1';
    const result = await connector.fetch(binding('/auth'), null, { bearer });
    expect(result).toMatchObject({ ok: false, failure: { kind: 'network' } });
    expect(JSON.stringify(result)).not.toContain('leaked');
  });
});
