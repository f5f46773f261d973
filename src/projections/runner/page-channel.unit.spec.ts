import type { FilteredPage } from '../../domain/ports/event-store.js';
import { PageChannel } from './page-channel.js';

const page = (last: number): FilteredPage => ({ events: [], scanned: 1, last });
const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('OP-3 a rebuild page channel', () => {
  it('hands pages over in order and lets the writer run at most `capacity` pages ahead', async () => {
    const channel = new PageChannel(2);
    const put: number[] = [];
    const writer = (async () => {
      for (const last of [1, 2, 3, 4, 5]) {
        await channel.put(page(last));
        put.push(last);
      }
      channel.end();
    })();
    await tick();
    expect(put).toEqual([1, 2]);
    const taken: number[] = [];
    for (let p = await channel.take(); p; p = await channel.take()) {
      taken.push(p.last!);
      expect(put.length - taken.length).toBeLessThanOrEqual(2);
    }
    await writer;
    expect(taken).toEqual([1, 2, 3, 4, 5]);
  });

  it('a reader waiting on an empty channel gets the next page, and undefined once it ends', async () => {
    const channel = new PageChannel(1);
    const next = channel.take();
    await tick();
    await channel.put(page(7));
    expect((await next)?.last).toBe(7);
    const end = channel.take();
    channel.end();
    expect(await end).toBeUndefined();
  });

  it('broken, it drops what waits and releases a blocked writer and a waiting reader', async () => {
    const full = new PageChannel(1);
    await full.put(page(1));
    const blocked = full.put(page(2));
    full.break();
    await blocked;
    expect(full.open).toBe(false);
    expect(await full.take()).toBeUndefined();

    const empty = new PageChannel(1);
    const waiting = empty.take();
    empty.break();
    expect(await waiting).toBeUndefined();
  });
});
