import { payloadDigest } from '../occurrence/payload-digest.js';
import { MAX_POLL_ITEM_BYTES, readPollPage } from './poll-page.js';

describe('PO-2 reading a poll page', () => {
  const binding = { itemsPointer: '/items', idPointer: '/id', nextCursorPointer: '/next', schema: { required: [] } };

  it('refuses a page longer than the append of one poll may hold', () => {
    const items = Array.from({ length: 1001 }, (_, i) => ({ id: i }));
    expect(readPollPage({ items }, binding)).toMatchObject({ ok: false, failure: { kind: 'too_many_items' } });
  });

  it('keeps an item problem short even when it quotes a hostile member name', () => {
    const key = 'k'.repeat(100_000);
    const result = readPollPage({ items: [{ id: 'a', [key]: 'x\u0000y' }] }, binding);
    if (!result.ok) throw new Error('expected a page');
    expect(result.page.items[0]!.problem!.length).toBeLessThanOrEqual(301);
  });

  it('OC-5 WH-1 an item longer than a webhook body may be (256 KiB as JSON) is an invalid item, never an Occurrence input', () => {
    // `{"id":"at","pad":""}` is 20 bytes: the first item is exactly at the bound, the second one byte over it
    const padded = (id: string, extra: number) => ({ id, pad: 'x'.repeat(MAX_POLL_ITEM_BYTES - 20 + extra) });
    expect(Buffer.byteLength(JSON.stringify(padded('at', 0)))).toBe(MAX_POLL_ITEM_BYTES);
    const result = readPollPage({ items: [padded('at', 0), padded('ov', 1), { id: 'small' }] }, binding);
    if (!result.ok) throw new Error('expected a page');
    expect(result.page.items.map((i) => [i.itemId, i.problem])).toEqual([
      ['at', null],
      ['ov', `the item is ${MAX_POLL_ITEM_BYTES + 1} bytes as JSON; at most ${MAX_POLL_ITEM_BYTES}`],
      ['small', null],
    ]);
    expect(MAX_POLL_ITEM_BYTES).toBe(256 * 1024);
  });

  it('PO-1 an upstream answering a bare array is read with itemsPointer "", and a list of bare ids with idPointer ""', () => {
    const bare = readPollPage([{ id: 'a' }, { id: 'b' }], { ...binding, itemsPointer: '' });
    expect(bare.ok && bare.page.items.map((i) => i.itemId)).toEqual(['a', 'b']);
    const ids = readPollPage({ items: ['x', 7] }, { ...binding, idPointer: '' });
    expect(ids.ok && ids.page.items.map((i) => [i.itemId, i.problem])).toEqual([
      ['x', null],
      ['7', null],
    ]);
  });

  it('OC-4 PO-4 each item carries the digest of its parsed payload, one without an id too; none when out of bounds', () => {
    let deep: unknown = { id: 'deep' };
    for (let i = 0; i < 70; i++) deep = { id: 'deep', inner: deep };
    const result = readPollPage({ items: [{ id: 'a', v: 1 }, { v: 1, id: 'a' }, { v: 2 }, deep] }, binding);
    if (!result.ok) throw new Error('expected a page');
    expect(result.page.items.map((i) => i.digest)).toEqual([
      payloadDigest({ id: 'a', v: 1 }),
      payloadDigest({ id: 'a', v: 1 }),
      payloadDigest({ v: 2 }),
      null,
    ]);
  });

  it('reads a numeric next cursor as its decimal text and an absent one as null', () => {
    expect(readPollPage({ items: [], next: 42 }, binding)).toEqual({ ok: true, page: { items: [], nextCursor: '42' } });
    expect(readPollPage({ items: [] }, binding)).toEqual({ ok: true, page: { items: [], nextCursor: null } });
  });
});
