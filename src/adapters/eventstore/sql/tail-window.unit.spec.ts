import { jest } from '@jest/globals';
import type { RecordedEvent } from '../../../domain/ports/event-store.js';
import { TailWindow, type TailRead, type TailWindowLimits } from './tail-window.js';

/**
 * The window's own rules against a log held in an array (the store's reads are proved against PostgreSQL and
 * PGlite in the event store conformance suite): pages equal the log's, readers at the end share one read, a read
 * that began before an append is not trusted to hold it, memory stays bounded, and nobody can change an event.
 */
class Log {
  readonly events: RecordedEvent[] = [];
  reads = 0;
  /** While set, reads wait for it (a read in flight). */
  gate: Promise<void> | null = null;
  /** The last events reads do not show yet: committed, held back behind an older open transaction (rule 1). */
  heldBack = 0;

  append(count: number, size = 10): void {
    for (let i = 0; i < count; i++) {
      // positions need not follow read order (rule 1); odd ones here sort before their predecessors' numbers
      const position = 1000 + this.events.length * 2 + (this.events.length % 2 ? -1 : 0);
      this.events.push({
        id: `e${this.events.length}`,
        streamId: `s${this.events.length % 3}`,
        revision: 0,
        position,
        type: this.events.length % 2 ? 'Odd' : 'Even',
        schemaVersion: 1,
        data: { n: this.events.length, nested: { list: [1, 2] }, size },
        metadata: {},
        recordedAt: '2026-12-06T00:00:00.000Z',
        hash: 'h',
        prevHash: null,
      });
    }
  }

  /** What the store would read after `after` (0: from the start). */
  after(after: number, maxCount: number): RecordedEvent[] {
    const from = after === 0 ? 0 : this.events.findIndex((e) => e.position === after) + 1;
    return this.events.slice(from, from + maxCount);
  }

  readonly read = async (after: number, maxCount: number): Promise<TailRead> => {
    this.reads++;
    const gate = this.gate;
    if (gate) await gate;
    const visible = this.events.length - this.heldBack;
    const events = this.after(after, maxCount)
      .filter((e) => this.events.indexOf(e) < visible)
      .map((e) => structuredClone(e));
    return { events, sizes: events.map((e) => (e.data as { size: number }).size) };
  };
}

const limits = (overrides: Partial<TailWindowLimits> = {}): TailWindowLimits => ({
  readCount: 100,
  maxEvents: 1_000,
  maxBytes: 1_000_000,
  staleMs: 1_000,
  freshMs: 50,
  ...overrides,
});

describe('TailWindow: live subscriptions served from one read of the log', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => (now = 10_000));

  it('serves every reader the same pages the log would, by type, whatever its page size', async () => {
    const log = new Log();
    log.append(5);
    const window = new TailWindow(log.read, limits(), clock);
    const cursors = [0, 0, 0];
    const seen: RecordedEvent[][] = [[], [], []];
    const sizes = [2, 3, 100];
    for (let round = 0; round < 20; round++) {
      log.append(round % 4);
      for (let r = 0; r < 3; r++) {
        const types = r === 2 ? new Set(['Odd']) : null;
        const page = await window.page(cursors[r]!, sizes[r]!, types);
        expect(page).not.toBeNull();
        // the window's page may stop at the end of what it last read, never before it and never empty while the
        // log has more: a prefix of the store's own page
        const expected = log.after(cursors[r]!, page!.scanned);
        expect(page!.scanned).toBeGreaterThanOrEqual(Math.min(1, log.after(cursors[r]!, 1).length));
        expect(page!.scanned).toBeLessThanOrEqual(sizes[r]!);
        expect(page!.last).toBe(expected[expected.length - 1]?.position ?? null);
        expect(page!.events.map((e) => e.id)).toEqual(
          expected.filter((e) => !types || types.has(e.type)).map((e) => e.id),
        );
        seen[r]!.push(...page!.events);
        if (page!.last !== null) cursors[r] = page!.last;
      }
    }
    for (let r = 0; r < 3; r++)
      for (let page = await window.page(cursors[r]!, sizes[r]!, null); page!.last !== null;) {
        seen[r]!.push(...page!.events);
        cursors[r] = page!.last;
        page = await window.page(cursors[r]!, sizes[r]!, null);
      }
    for (let r = 0; r < 2; r++) expect(seen[r]!.map((e) => e.id)).toEqual(log.after(0, 1_000).map((e) => e.id));
    // each reader would have read the store once per page it asked for: more than 60 pages here
    expect(log.reads).toBeLessThanOrEqual(30);
  });

  it('readers at the end share one read; one that arrives during it reads again, so an append it was woken for is not missed', async () => {
    const log = new Log();
    log.append(2);
    const window = new TailWindow(log.read, limits(), clock);
    const first = await window.page(0, 10, null);
    const at = first!.last!;
    log.append(1);
    let open!: () => void;
    log.gate = new Promise((resolve) => (open = resolve));
    const readsBefore = log.reads;
    const together = [window.page(at, 10, null), window.page(at, 10, null), window.page(at, 10, null)];
    await Promise.resolve();
    // appended while that read is in flight: a reader woken for it must not be answered by the older read alone
    log.append(1);
    const late = window.page(at, 10, null);
    log.gate = null;
    open();
    const pages = await Promise.all([...together, late]);
    expect(log.reads - readsBefore).toBe(2);
    for (const page of pages.slice(0, 3)) expect(page!.scanned).toBeGreaterThanOrEqual(1);
    expect(pages[3]!.events.map((e) => e.id)).toEqual(['e2', 'e3']);
  });

  it('told of every append of its process, a reader at the end is answered empty without a read until an append or freshMs', async () => {
    const log = new Log();
    log.append(1);
    const window = new TailWindow(log.read, limits(), clock, true);
    const at = (await window.page(0, 10, null))!.last!;
    const reads = log.reads;
    expect(await window.page(at, 10, null)).toEqual({ events: [], scanned: 0, last: null });
    expect(log.reads).toBe(reads);
    log.append(1);
    window.noteAppend();
    expect((await window.page(at, 10, null))!.events.map((e) => e.id)).toEqual(['e1']);
    expect(log.reads).toBe(reads + 1);
    // another process's append: nobody noticed it, so it is read once freshMs has passed since the last read
    log.append(1);
    const at1 = log.events[1]!.position;
    expect((await window.page(at1, 10, null))!.scanned).toBe(0);
    now += 50;
    expect((await window.page(at1, 10, null))!.events.map((e) => e.id)).toEqual(['e2']);
  });

  it('a read that did not show a noticed append (held back) answers no later reader: the next one reads again', async () => {
    const log = new Log();
    log.append(1);
    const window = new TailWindow(log.read, limits(), clock, true);
    const at = (await window.page(0, 10, null))!.last!;
    log.append(1);
    log.heldBack = 1;
    window.noteAppend(undefined, log.events[1]!.position);
    expect(await window.page(at, 10, null)).toEqual({ events: [], scanned: 0, last: null });
    const reads = log.reads;
    // the older transaction ends within freshMs of that read: the next reader sees the append
    log.heldBack = 0;
    expect((await window.page(at, 10, null))!.events.map((e) => e.id)).toEqual(['e1']);
    expect(log.reads).toBe(reads + 1);
    // once shown, readers at the end are answered again without a read
    const after = log.events[1]!.position;
    expect(await window.page(after, 10, null)).toEqual({ events: [], scanned: 0, last: null });
    expect(log.reads).toBe(reads + 1);
  });

  it('while a read holds a noticed append back, its subscribers are woken again soon (its types), until a read shows it', async () => {
    const log = new Log();
    log.append(1);
    const window = new TailWindow(log.read, limits(), clock, true);
    const woken: Array<readonly string[] | undefined> = [];
    let heard: (() => void) | null = null;
    window.whenHeldBack((types) => {
      woken.push(types);
      heard?.();
    });
    const nextWake = () => new Promise<void>((resolve) => (heard = resolve));
    const at = (await window.page(0, 10, null))!.last!;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(woken).toEqual([]); // nothing held back, nobody woken
    log.append(1);
    log.heldBack = 1;
    window.noteAppend(['Odd'], log.events[1]!.position);
    let wake = nextWake();
    expect(await window.page(at, 10, null)).toEqual({ events: [], scanned: 0, last: null });
    await wake; // the transaction it waits behind may end without telling anyone: no idle poll is waited for
    expect(woken).toEqual([['Odd']]);
    // still held back: the woken subscriber reads nothing again, and is woken again
    wake = nextWake();
    expect(await window.page(at, 10, null)).toEqual({ events: [], scanned: 0, last: null });
    await wake;
    expect(woken).toEqual([['Odd'], ['Odd']]);
    log.heldBack = 0;
    expect((await window.page(at, 10, null))!.events.map((e) => e.id)).toEqual(['e1']);
    await new Promise((resolve) => setTimeout(resolve, 120)); // longer than the longest wait between wakes
    expect(woken).toHaveLength(2);
  });

  it('under steady appends the back-off starts over for each append held back: one held long slows none after it', async () => {
    const log = new Log();
    log.append(1);
    const window = new TailWindow(log.read, limits(), clock, true);
    let heard: (() => void) | null = null;
    window.whenHeldBack(() => heard?.());
    const nextWake = () => new Promise<void>((resolve) => (heard = resolve));
    const at = (await window.page(0, 10, null))!.last!;
    log.append(1);
    log.heldBack = 1;
    window.noteAppend(['Odd'], log.events[1]!.position);
    for (let i = 0; i < 4; i++) {
      const wake = nextWake(); // held back long: 5, 10, 20, 40 ms between wakes
      expect(await window.page(at, 10, null)).toEqual({ events: [], scanned: 0, last: null });
      await wake;
    }
    // It shows, and the next append is held back a moment as it is noticed (a busy log always has one).
    log.append(1);
    // The delays the window asks for, not the time its wake took: a full run's saturated cores stall timers.
    const realSetTimeout = globalThis.setTimeout;
    const delays: number[] = [];
    const spy = jest.spyOn(globalThis, 'setTimeout').mockImplementation(((callback: () => void, ms?: number) => {
      delays.push(ms ?? 0);
      return realSetTimeout(callback, ms);
    }) as typeof setTimeout);
    try {
      window.noteAppend(['Even'], log.events[2]!.position);
      const wake = nextWake();
      expect((await window.page(at, 10, null))!.events.map((e) => e.id)).toEqual(['e1']);
      await wake;
    } finally {
      spy.mockRestore();
    }
    expect(delays).toEqual([5]); // the first back-off, not the one e1 had grown (≥ 40 ms)
  });

  it('keeps at most maxEvents: a reader the window left behind reads the store itself (null)', async () => {
    const log = new Log();
    const window = new TailWindow(log.read, limits({ maxEvents: 5 }), clock);
    log.append(1);
    const first = await window.page(0, 10, null);
    log.append(8);
    expect(await window.page(first!.last!, 100, null)).toBeNull(); // its read brought 9 events; the oldest 4 went
    const kept = await window.page(log.events[3]!.position, 100, null);
    expect(kept!.events.map((e) => e.id)).toEqual(['e4', 'e5', 'e6', 'e7', 'e8']);
  });

  it('keeps at most maxBytes of stored events, however few', async () => {
    const log = new Log();
    const window = new TailWindow(log.read, limits({ maxBytes: 35 }), clock);
    log.append(1);
    await window.page(0, 10, null);
    log.append(2);
    expect((await window.page(log.events[0]!.position, 10, null))!.events.map((e) => e.id)).toEqual(['e1', 'e2']);
    log.append(1, 30);
    expect((await window.page(log.events[2]!.position, 10, null))!.events.map((e) => e.id)).toEqual(['e3']);
    // 10 + 10 + 10 + 30 bytes: only the last event is left, so a reader at e1 reads the store
    expect(await window.page(log.events[1]!.position, 10, null)).toBeNull();
    const readsBefore = log.reads;
    expect((await window.page(log.events[2]!.position, 10, null))!.events.map((e) => e.id)).toEqual(['e3']);
    expect(log.reads).toBe(readsBefore);
  });

  it('a window nobody is served from for staleMs moves to the next reader that misses it', async () => {
    const log = new Log();
    log.append(10);
    const window = new TailWindow(log.read, limits(), clock);
    const ahead = await window.page(log.events[7]!.position, 10, null);
    expect(ahead!.events.map((e) => e.id)).toEqual(['e8', 'e9']);
    expect(await window.page(log.events[2]!.position, 10, null)).toBeNull();
    now += 1_000;
    const behind = await window.page(log.events[2]!.position, 10, null);
    expect(behind!.events.map((e) => e.id)).toEqual(['e3', 'e4', 'e5', 'e6', 'e7', 'e8', 'e9']);
  });

  it('hands out frozen events: a reader cannot change what the next one reads', async () => {
    const log = new Log();
    log.append(1);
    const window = new TailWindow(log.read, limits(), clock);
    const [event] = (await window.page(0, 10, null))!.events;
    expect(() => {
      (event!.data as { n: number }).n = 99;
    }).toThrow(/read only|read-only/);
    expect(() => (event!.data as { nested: { list: number[] } }).nested.list.push(3)).toThrow(/not extensible/);
    expect((await window.page(0, 10, null))!.events[0]!.data).toEqual({ n: 0, nested: { list: [1, 2] }, size: 10 });
  });

  it('a failed read reaches its readers, and the next read is tried afresh', async () => {
    const log = new Log();
    log.append(1);
    let fail = true;
    const window = new TailWindow(
      async (after, maxCount) => {
        if (fail) throw new Error('connection lost');
        return log.read(after, maxCount);
      },
      limits(),
      clock,
    );
    await expect(window.page(0, 10, null)).rejects.toThrow('connection lost');
    fail = false;
    expect((await window.page(0, 10, null))!.events.map((e) => e.id)).toEqual(['e0']);
  });
});
