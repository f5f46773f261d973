import { randomUUID } from 'node:crypto';
import { type EventStore, type NewEvent, type RecordedEvent } from '../../src/domain/ports/event-store.js';
import { StoreUnavailable, WrongExpectedRevision } from '../../src/domain/shared/errors.js';
import type { SqlClient, SqlExecutor } from '../../src/projections/sql-client.js';
import type { UpcasterRegistry } from '../../src/adapters/eventstore/upcasters.js';
import { UpcasterRegistry as Registry } from '../../src/adapters/eventstore/upcasters.js';
import { verifyStreamChain } from '../../src/domain/audit/verify-chain.js';
import { ProjectionRunner } from '../../src/projections/runner/projection-runner.js';
import type { Projection } from '../../src/projections/runner/projection.js';

/** What one adapter offers the shared suite; SQL-only capabilities are optional. */
export interface ConformanceHarness {
  store: EventStore;
  withUpcasters(registry: UpcasterRegistry): EventStore;
  /** The read-model database (PostgreSQL or PGlite) projections write to. */
  sql: SqlClient;
  /** Runs appends inside one store transaction that commits when `work` resolves and rolls back when it throws. */
  inTransaction?: <T>(work: (store: EventStore) => Promise<T>) => Promise<T>;
  /** True when two transactions can be open at once (not PGlite's single connection). */
  concurrentTransactions: boolean;
  tamper?: (streamId: string, revision: number) => Promise<void>;
  unreachable?: () => Promise<EventStore>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const stream = (prefix = 'conf') => `${prefix}-${randomUUID()}`;
const event = (n: number, extra: Partial<NewEvent> = {}): NewEvent => ({
  type: 'Tested',
  data: { n, pad: 'x'.repeat(n % 7) },
  metadata: { tenant: 't1' },
  ...extra,
});

/**
 * Reads the whole log up to its current head. Other test files share the database, and readAll
 * rightly holds events back while any older transaction is open, so an empty page means "wait".
 */
async function readEverything(store: EventStore, from = 0): Promise<RecordedEvent[]> {
  const head = await store.headPosition();
  const all: RecordedEvent[] = [];
  const deadline = Date.now() + 20_000;
  for (;;) {
    const page = await store.readAll({ after: all.length ? all[all.length - 1]!.position : from, maxCount: 1000 });
    all.push(...page);
    if (page.length > 0) continue;
    if (
      head === 0 ||
      all.some((e) => e.position === head) ||
      (all.length && (await store.isAtOrBefore(head, all[all.length - 1]!.position)))
    )
      return all;
    if (from > 0 && (await store.isAtOrBefore(head, from))) return all;
    if (Date.now() > deadline) throw new Error('the log did not become readable up to its head');
    await sleep(5);
  }
}

export function eventStoreConformance(adapter: string, open: () => Promise<ConformanceHarness>): void {
  describe(`EventStore conformance: ${adapter}`, () => {
    let h: ConformanceHarness;
    beforeAll(async () => {
      h = await open();
    });
    afterAll(async () => {
      await h?.close();
    });

    describe('append and read', () => {
      it('assigns revisions from 0, unique global positions, store timestamps and a hash chain', async () => {
        const s = stream();
        const first = await h.store.append(s, [event(1), event(2)], 'no_stream');
        const second = await h.store.append(s, [event(3)], first.nextExpectedRevision);
        expect(first.nextExpectedRevision).toBe(1);
        expect(second.nextExpectedRevision).toBe(2);
        const read = await h.store.readStream(s);
        expect(read.map((e) => e.revision)).toEqual([0, 1, 2]);
        expect(read.map((e) => (e.data as { n: number }).n)).toEqual([1, 2, 3]);
        expect(new Set(read.map((e) => e.position)).size).toBe(3);
        expect(second.position).toBe(read[2]!.position);
        read.forEach((e) => expect(e.recordedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/));
        expect(read[0]!.prevHash).toBeNull();
        expect(read[1]!.prevHash).toBe(read[0]!.hash);
        expect(read[2]!.prevHash).toBe(read[1]!.hash);
      });

      it('reads a missing stream as empty', async () => {
        expect(await h.store.readStream(stream('missing'))).toEqual([]);
      });

      it('reads only the last event of a stream, null for a missing one', async () => {
        const s = stream();
        await h.store.append(
          s,
          [1, 2, 3].map((n) => event(n)),
          'no_stream',
        );
        const last = await h.store.readLast(s);
        expect(last).toEqual((await h.store.readStream(s))[2]);
        expect(await h.store.readLast(stream('missing'))).toBeNull();
      });

      it('reads from a revision with a maximum count', async () => {
        const s = stream();
        await h.store.append(
          s,
          [1, 2, 3, 4, 5].map((n) => event(n)),
          'no_stream',
        );
        const page = await h.store.readStream(s, { fromRevision: 2, maxCount: 2 });
        expect(page.map((e) => e.revision)).toEqual([2, 3]);
      });

      it('answers the store clock, not the host clock (SC-6)', async () => {
        const now = await h.store.now();
        expect(Math.abs(now.getTime() - Date.now())).toBeLessThan(60_000);
      });
    });

    describe('optimistic concurrency (TR-3, OC-3, AD-1)', () => {
      it('rejects no_stream on an existing stream with the actual revision', async () => {
        const s = stream();
        await h.store.append(s, [event(1), event(2)], 'no_stream');
        await expect(h.store.append(s, [event(3)], 'no_stream')).rejects.toMatchObject({
          name: 'WrongExpectedRevision',
          actual: 1,
        });
      });

      it('rejects a stale and a future expected revision', async () => {
        const s = stream();
        await h.store.append(s, [event(1), event(2)], 'no_stream');
        await expect(h.store.append(s, [event(3)], 0)).rejects.toBeInstanceOf(WrongExpectedRevision);
        await expect(h.store.append(s, [event(3)], 5)).rejects.toMatchObject({ actual: 1 });
        await expect(h.store.append(stream('absent'), [event(1)], 0)).rejects.toMatchObject({ actual: -1 });
      });

      it('stream_exists needs the stream; any appends at the head', async () => {
        const s = stream();
        await expect(h.store.append(s, [event(1)], 'stream_exists')).rejects.toBeInstanceOf(WrongExpectedRevision);
        await h.store.append(s, [event(1)], 'any');
        const r = await h.store.append(s, [event(2)], 'stream_exists');
        expect(r.nextExpectedRevision).toBe(1);
      });

      it('lets exactly one of 100 concurrent appends at the same expected revision win', async () => {
        const s = stream();
        await h.store.append(s, [event(0)], 'no_stream');
        const outcomes = await Promise.allSettled(
          Array.from({ length: 100 }, (_, i) => h.store.append(s, [event(i)], 0)),
        );
        const won = outcomes.filter((o) => o.status === 'fulfilled');
        const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(99);
        lost.forEach((o) => expect(o.reason).toBeInstanceOf(WrongExpectedRevision));
        expect(await h.store.readStream(s)).toHaveLength(2);
      });

      it('lets exactly one of 100 concurrent no_stream appends create the stream (dedupe, OC-3)', async () => {
        const s = stream('occurrence');
        const outcomes = await Promise.allSettled(
          Array.from({ length: 100 }, (_, i) => h.store.append(s, [event(i)], 'no_stream')),
        );
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        expect(await h.store.readStream(s)).toHaveLength(1);
      });

      it('treats re-appending the same event ids at the same expected revision as success (ambiguous failure retry)', async () => {
        const s = stream();
        const batch = [event(1, { id: randomUUID() }), event(2, { id: randomUUID() })];
        const first = await h.store.append(s, batch, 'no_stream');
        const again = await h.store.append(s, batch, 'no_stream');
        expect(again.position).toBe(first.position);
        expect(await h.store.readStream(s)).toHaveLength(2);
        const next = [event(3, { id: randomUUID() })];
        const third = await h.store.append(s, next, 1);
        expect((await h.store.append(s, next, 1)).position).toBe(third.position);
        await expect(h.store.append(s, [event(9, { id: randomUUID() })], 1)).rejects.toBeInstanceOf(
          WrongExpectedRevision,
        );
      });
    });

    describe('gap-free global order', () => {
      it('returns appended events in order and continues after a position', async () => {
        const before = await readEverything(h.store);
        const s = stream();
        await h.store.append(s, [event(1), event(2), event(3)], 'no_stream');
        const after = before.length ? before[before.length - 1]!.position : 0;
        const page = await readEverything(h.store, after);
        expect(page.filter((e) => e.streamId === s).map((e) => e.revision)).toEqual([0, 1, 2]);
      });

      it('reads a page filtered by type as readAll would: only the wanted events, the whole page counted, its end given', async () => {
        if (!h.store.readAllOf) return expect(h.store.kind).toBe('eventstoredb');
        const before = await readEverything(h.store);
        const from = before.length ? before[before.length - 1]!.position : 0;
        const wanted = `Wanted-${randomUUID()}`;
        await h.store.append(
          stream(),
          [event(1, { type: wanted }), event(2), event(3, { type: wanted }), event(4)],
          'no_stream',
        );
        const page = await readEverything(h.store, from);
        const end = page[page.length - 1]!.position;

        const filtered = await h.store.readAllOf([wanted, 'NeverAppended'], { after: from, maxCount: page.length });
        expect(filtered.events).toEqual(page.filter((e) => e.type === wanted));
        expect(filtered.events.map((e) => (e.data as { n: number }).n)).toEqual([1, 3]);
        expect(filtered).toMatchObject({ scanned: page.length, last: end });

        // A page with nothing wanted still says how far it went, so a subscriber moves past it.
        expect(await h.store.readAllOf([`Absent-${randomUUID()}`], { after: from, maxCount: page.length })).toEqual({
          events: [],
          scanned: page.length,
          last: end,
        });
        const firstTwo = await h.store.readAllOf([wanted], { after: from, maxCount: 2 });
        expect(firstTwo).toMatchObject({ scanned: 2, last: page[1]!.position });
        expect(firstTwo.events).toEqual(page.slice(0, 2).filter((e) => e.type === wanted));
      });

      it('leaves the data paths a filtered reader does not need out of what it reads, and nothing else', async () => {
        if (!h.store.readAllOf) return expect(h.store.kind).toBe('eventstoredb');
        const before = await readEverything(h.store);
        const from = before.length ? before[before.length - 1]!.position : 0;
        const wanted = `Carrier-${randomUUID()}`;
        const payloads = [
          { n: 1, input: { secret: 'body' }, keep: true },
          { n: 2, request: { input: { secret: 'body' }, lane: 'l' }, input: 'also' },
          { n: 3, inputs: 'not a listed path' },
        ];
        await h.store.append(
          stream(),
          payloads.map((data) => event(0, { type: wanted, data })),
          'no_stream',
        );
        const page = await readEverything(h.store, from);
        const read = await h.store.readAllOf([wanted], {
          after: from,
          maxCount: page.length,
          omitData: [['input'], ['request', 'input']],
        });
        expect(read.events.map((e) => e.data)).toEqual([
          { n: 1, keep: true },
          { n: 2, request: { lane: 'l' } },
          { n: 3, inputs: 'not a listed path' },
        ]);
        expect(read.events.map((e) => e.id)).toEqual(page.filter((e) => e.type === wanted).map((e) => e.id));
        const whole = await h.store.readAllOf([wanted], { after: from, maxCount: page.length });
        expect(whole.events.map((e) => e.data)).toEqual(payloads);
      });

      it('does not pass an in-flight transaction holding an earlier position, and is not stalled by a rollback', async () => {
        if (!h.inTransaction || !h.concurrentTransactions) return expect(h.concurrentTransactions).toBe(false);
        const seen = await readEverything(h.store);
        const cursor = seen.length ? seen[seen.length - 1]!.position : 0;
        const early = stream('early');
        const late = stream('late');
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        const inFlight = h.inTransaction(async (tx) => {
          await tx.append(early, [event(1)], 'no_stream');
          await gate;
        });
        await sleep(50);
        await h.store.append(late, [event(2)], 'no_stream');
        // The later commit is held back while the earlier position may still commit.
        expect((await h.store.readAll({ after: cursor })).map((e) => e.streamId)).not.toContain(late);
        release();
        await inFlight;
        const visible = (await readEverything(h.store, cursor)).map((e) => e.streamId);
        expect(visible.indexOf(early)).toBeGreaterThanOrEqual(0);
        expect(visible.indexOf(early)).toBeLessThan(visible.indexOf(late));

        const rolledBack = stream('rolled-back');
        const later = stream('after-rollback');
        let abort!: () => void;
        const aborted = new Promise<void>((resolve) => (abort = resolve));
        const doomed = h.inTransaction(async (tx) => {
          await tx.append(rolledBack, [event(3)], 'no_stream');
          await aborted;
          throw new Error('roll back');
        });
        await sleep(50);
        await h.store.append(later, [event(4)], 'no_stream');
        abort();
        await expect(doomed).rejects.toThrow('roll back');
        const afterRollback = (await readEverything(h.store, cursor)).map((e) => e.streamId);
        expect(afterRollback).toContain(later);
        expect(afterRollback).not.toContain(rolledBack);
      });

      it('answers as head the last event in read order, not the highest position', async () => {
        if (!h.inTransaction || !h.concurrentTransactions) return expect(h.concurrentTransactions).toBe(false);
        const seen = await readEverything(h.store);
        const cursor = seen.length ? seen[seen.length - 1]!.position : 0;
        const [older, younger] = [stream('older-transaction'), stream('younger-transaction')];
        let opened!: () => void;
        const hasTransactionId = new Promise<void>((resolve) => (opened = resolve));
        let resume!: () => void;
        const paused = new Promise<void>((resolve) => (resume = resolve));
        const olderTransaction = h.inTransaction(async (tx) => {
          await tx.append(older, [event(1)], 'no_stream'); // its first write fixes the transaction id
          opened();
          await paused;
          return tx.append(older, [event(2)], 0);
        });
        await hasTransactionId;
        const between = await h.store.append(younger, [event(3)], 'no_stream');
        resume();
        const highest = await olderTransaction;
        // The older transaction's second event took the highest position but sorts before the younger one.
        expect(highest.position).toBeGreaterThan(between.position);
        expect(await h.store.headPosition()).toBe(between.position);
        const read = await readEverything(h.store, cursor);
        expect(read.map((e) => e.streamId)).toEqual([older, older, younger]);
        expect(read[read.length - 1]!.position).toBe(await h.store.headPosition());
      });

      it('delivers every committed event exactly once to a subscriber racing 8 writers with delayed commits and rollbacks', async () => {
        const seen = await readEverything(h.store);
        const start = seen.length ? seen[seen.length - 1]!.position : 0;
        const committed = new Set<string>();
        const rolledBack = new Set<string>();
        let writing = true;
        const run = h.inTransaction ?? ((work: (store: EventStore) => Promise<void>) => work(h.store));
        const writer = async (w: number) => {
          const s = stream(`writer${w}`);
          let revision = -1;
          for (let i = 0; i < 25; i++) {
            const batch = Array.from({ length: 1 + (i % 3) }, (_, k) => event(k, { id: randomUUID() }));
            const rollback = h.inTransaction !== undefined && Math.random() < 0.2;
            try {
              await run(async (tx) => {
                await tx.append(s, batch, revision < 0 ? 'no_stream' : revision);
                await sleep(Math.random() * 12);
                if (rollback) throw new Error('rollback');
              });
              batch.forEach((e) => committed.add(e.id!));
              revision += batch.length;
            } catch {
              batch.forEach((e) => rolledBack.add(e.id!));
            }
          }
        };
        // Pages of the store's own reads, and live ones the store may serve from the tail it read for all of them.
        type Read = (after: number) => Promise<{ events: RecordedEvent[]; last: number | null }>;
        const whole =
          (maxCount: number, live: boolean): Read =>
          async (after) => {
            const events = await h.store.readAll({ after, maxCount, live });
            return { events, last: events[events.length - 1]?.position ?? null };
          };
        const subscribers: Read[] = [whole(50, false), whole(50, true), whole(3, true)];
        if (h.store.readAllOf)
          subscribers.push((after) => h.store.readAllOf!(['Tested'], { after, maxCount: 7, live: true }));
        const subscribe = async (read: Read) => {
          const received: RecordedEvent[] = [];
          let cursor = start;
          for (;;) {
            const page = await read(cursor);
            if (page.last !== null) {
              received.push(...page.events);
              cursor = page.last;
            } else if (!writing) {
              // whatever an open transaction elsewhere held back
              return [...received, ...(await readEverything(h.store, cursor))];
            } else {
              await sleep(Math.random() * 4);
            }
          }
        };
        const receiving = subscribers.map(subscribe);
        await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
        writing = false;
        for (const received of await Promise.all(receiving)) {
          const ids = received
            .filter((e) => e.type === 'Tested')
            .map((e) => e.id)
            .filter((id) => committed.has(id) || rolledBack.has(id));
          expect(new Set(ids).size).toBe(ids.length);
          expect(new Set(ids)).toEqual(committed);
          ids.forEach((id) => expect(rolledBack.has(id)).toBe(false));
          const byStream = new Map<string, number[]>();
          received.forEach((e) => byStream.set(e.streamId, [...(byStream.get(e.streamId) ?? []), e.revision]));
          byStream.forEach((revisions) => expect(revisions).toEqual([...revisions].sort((a, b) => a - b)));
        }
      });
    });

    describe('many streams at once (group commit, admission reads and writes)', () => {
      it('gives each of 200 concurrent first appends of different streams its own answer, revision 0 and a verifiable chain', async () => {
        const streams = Array.from({ length: 200 }, () => stream('occurrence'));
        const results = await Promise.all(streams.map((s, i) => h.store.append(s, [event(i)], 'no_stream')));
        expect(new Set(results.map((r) => r.position)).size).toBe(200);
        for (const [i, s] of streams.entries()) {
          const stored = await h.store.readStream(s, { raw: true });
          expect(stored).toHaveLength(1);
          expect(results[i]).toMatchObject({ streamId: s, nextExpectedRevision: 0, position: stored[0]!.position });
          expect(results[i]!.events[0]).toMatchObject({
            id: stored[0]!.id,
            hash: stored[0]!.hash,
            recordedAt: stored[0]!.recordedAt,
            prevHash: null,
          });
          expect(verifyStreamChain(stored)).toEqual([]);
        }
      });

      it("fails only the append that reuses another stream's event id, not the ones committed beside it", async () => {
        const id = randomUUID();
        await h.store.append(stream(), [event(1, { id })], 'no_stream');
        const [reused, ...others] = await Promise.allSettled([
          h.store.append(stream('occurrence'), [event(2, { id })], 'no_stream'),
          ...Array.from({ length: 20 }, (_, i) => h.store.append(stream('occurrence'), [event(i)], 'no_stream')),
        ]);
        expect(reused!.status).toBe('rejected');
        expect(others.every((o) => o.status === 'fulfilled')).toBe(true);
      });

      it('answers concurrent reads of one stream from different revisions each with its own tail, never an older one', async () => {
        const s = stream();
        await h.store.append(s, [event(1), event(2), event(3)], 'no_stream');
        const before = await Promise.all([0, 1, 2, 3].map((fromRevision) => h.store.readStream(s, { fromRevision })));
        expect(before.map((events) => events.map((e) => e.revision))).toEqual([[0, 1, 2], [1, 2], [2], []]);
        const appended = h.store.append(s, [event(4)], 2);
        await appended;
        const after = await Promise.all([h.store.readStream(s), h.store.readStream(s, { fromRevision: 3 })]);
        expect(after.map((events) => events.length)).toEqual([4, 1]);
      });

      it('reads several streams, each from its own revision, as readStream would', async () => {
        if (!h.store.readStreams) return expect(h.store.kind).toBe('eventstoredb');
        const [a, b, absent] = [stream(), stream(), stream('absent')];
        await h.store.append(a, [event(1), event(2), event(3)], 'no_stream');
        await h.store.append(b, [event(4)], 'no_stream');
        const [fromA, fromB, none] = await h.store.readStreams([
          { streamId: a, fromRevision: 1 },
          { streamId: b, fromRevision: 0 },
          { streamId: absent, fromRevision: 0 },
        ]);
        expect(fromA).toEqual(await h.store.readStream(a, { fromRevision: 1 }));
        expect(fromB).toEqual(await h.store.readStream(b));
        expect(none).toEqual([]);
      });

      it('appends to several streams all or nothing: one stale stream writes none of them', async () => {
        if (!h.store.appendStreams) return expect(h.store.kind).toBe('eventstoredb');
        const [a, b] = [stream(), stream()];
        await h.store.append(a, [event(1)], 'no_stream');
        await expect(
          h.store.appendStreams([
            { streamId: a, events: [event(2)], expected: 0 },
            { streamId: b, events: [event(3)], expected: 0 },
          ]),
        ).rejects.toBeInstanceOf(WrongExpectedRevision);
        expect(await h.store.readStream(a)).toHaveLength(1);
        expect(await h.store.readStream(b)).toHaveLength(0);
        const positions = await h.store.appendStreams([
          { streamId: a, events: [event(2)], expected: 0 },
          { streamId: b, events: [event(3), event(4)], expected: 'no_stream' },
        ]);
        const [storedA, storedB] = [
          await h.store.readStream(a, { raw: true }),
          await h.store.readStream(b, { raw: true }),
        ];
        expect(positions).toEqual([storedA[1]!.position, storedB[1]!.position]);
        expect([verifyStreamChain(storedA), verifyStreamChain(storedB)]).toEqual([[], []]);
        // One event per stream (a claim with its slot stripe) chains each onto its own stream's last event.
        const next = await h.store.appendStreams([
          { streamId: a, events: [event(5)], expected: 1 },
          { streamId: b, events: [event(6)], expected: 1 },
        ]);
        const [chainedA, chainedB] = [
          await h.store.readStream(a, { raw: true }),
          await h.store.readStream(b, { raw: true }),
        ];
        expect(next).toEqual([chainedA[2]!.position, chainedB[2]!.position]);
        expect(chainedB[2]!.prevHash).toBe(chainedB[1]!.hash);
        expect([verifyStreamChain(chainedA), verifyStreamChain(chainedB)]).toEqual([[], []]);
      });

      it('names the stream that moved in a multi-stream conflict, with its actual revision', async () => {
        if (!h.store.appendStreams) return expect(h.store.kind).toBe('eventstoredb');
        const [a, b, c] = [stream('first'), stream('second'), stream('third')];
        await h.store.append(a, [event(1)], 'no_stream');
        await h.store.append(b, [event(2)], 'no_stream');
        await h.store.append(b, [event(3), event(4)], 0); // the second stream moves on to revision 2
        const ahead = await h.store
          .appendStreams([
            { streamId: a, events: [event(5)], expected: 0 },
            { streamId: b, events: [event(6)], expected: 0 },
            { streamId: c, events: [event(7)], expected: 'no_stream' },
          ])
          .catch((error: unknown) => error);
        expect(ahead).toBeInstanceOf(WrongExpectedRevision);
        expect(ahead).toMatchObject({ streamId: b, expected: 0, actual: 2 });
        // A stream behind its expected revision is named just the same (no constraint fires then).
        const behind = await h.store
          .appendStreams([
            { streamId: a, events: [event(8)], expected: 0 },
            { streamId: b, events: [event(9)], expected: 2 },
            { streamId: c, events: [event(10)], expected: 4 },
          ])
          .catch((error: unknown) => error);
        expect(behind).toBeInstanceOf(WrongExpectedRevision);
        expect(behind).toMatchObject({ streamId: c, expected: 4, actual: -1 });
        const lengths = await Promise.all([a, b, c].map(async (s) => (await h.store.readStream(s)).length));
        expect(lengths).toEqual([1, 3, 0]);
        if (!h.inTransaction) return;
        // Inside a transaction the failed statement aborts it, and the conflict still names the stream.
        const inTransaction = await h
          .inTransaction((tx) =>
            tx.appendStreams!([
              { streamId: a, events: [event(11)], expected: 0 },
              { streamId: b, events: [event(12)], expected: 1 },
            ]),
          )
          .catch((error: unknown) => error);
        expect(inTransaction).toBeInstanceOf(WrongExpectedRevision);
        expect(inTransaction).toMatchObject({ streamId: b, expected: 1 });
      });
    });

    describe('hash chain (AU-2)', () => {
      it('verifies an untouched stream', async () => {
        const s = stream();
        await h.store.append(s, [event(1), event(2)], 'no_stream');
        await h.store.append(s, [event(3, { data: { nested: { b: 1, a: [1.5, 'é', null] } } })], 1);
        expect(verifyStreamChain(await h.store.readStream(s, { raw: true }))).toEqual([]);
      });

      it('detects a tampered row', async () => {
        if (!h.tamper) return expect(h.store.kind).toBe('eventstoredb');
        const s = stream();
        await h.store.append(s, [event(1), event(2), event(3)], 'no_stream');
        await h.tamper(s, 1);
        const breaks = verifyStreamChain(await h.store.readStream(s, { raw: true }));
        expect(breaks).toEqual([{ streamId: s, revision: 1, problem: 'hash_mismatch' }]);
      });
    });

    describe('schema upcasting (AU-3)', () => {
      it('reads old schema versions through upcasters and leaves stored data untouched', async () => {
        const s = stream();
        await h.store.append(
          s,
          [{ type: 'LegacyNamed', schemaVersion: 1, data: { name: 'Ada Lovelace' } }],
          'no_stream',
        );
        const upcasting = h.withUpcasters(
          new Registry([
            { type: 'LegacyNamed', fromVersion: 1, upcast: (d) => ({ fullName: (d as { name: string }).name }) },
            {
              type: 'LegacyNamed',
              fromVersion: 2,
              upcast: (d) => ({ ...(d as object), given: String((d as { fullName: string }).fullName).split(' ')[0] }),
            },
          ]),
        );
        const [read] = await upcasting.readStream(s);
        expect(read).toMatchObject({ schemaVersion: 3, data: { fullName: 'Ada Lovelace', given: 'Ada' } });
        const [raw] = await upcasting.readStream(s, { raw: true });
        expect(raw).toMatchObject({ schemaVersion: 1, data: { name: 'Ada Lovelace' } });
      });
    });

    describe('projection checkpoint atomicity (OP-3)', () => {
      const table = `conformance_rows_${adapter.replace(/\W/g, '_')}`;
      const tag = randomUUID();
      let crashOn: string | null = null;
      const projection: Projection = {
        name: `conformance-${tag}`,
        handles: ['Counted'],
        tables: [table],
        migrations: [],
        async apply(e, tx: SqlExecutor) {
          if ((e.data as { tag: string }).tag !== tag) return;
          await tx.query(
            `INSERT INTO ${table} (event_id, stream_id, n) VALUES ($1, $2, $3) ON CONFLICT (event_id) DO NOTHING`,
            [e.id, e.streamId, (e.data as { n: number }).n],
          );
          if (e.id === crashOn) throw new Error('crash between row and checkpoint');
        },
      };

      it('writes neither rows nor checkpoint when it crashes mid-batch, then converges and rebuilds identically', async () => {
        await h.sql.exec(
          `CREATE TABLE IF NOT EXISTS ${table} (event_id uuid PRIMARY KEY, stream_id text NOT NULL, n int NOT NULL)`,
        );
        const s = stream('counted');
        const appended = await h.store.append(
          s,
          [1, 2, 3, 4].map((n) => ({ id: randomUUID(), type: 'Counted', data: { tag, n } })),
          'no_stream',
        );
        await readEverything(h.store); // everything visible, so the runner's first batch holds all of it
        const runner = new ProjectionRunner(h.sql, h.store, projection, { batchSize: 100_000 });
        crashOn = appended.events[2]!.id;
        await expect(runner.catchUp()).rejects.toThrow('crash between row and checkpoint');
        expect((await h.sql.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]).toEqual({ n: 0 });
        expect(await runner.position()).toBe(0);

        crashOn = null;
        await runner.catchUp();
        const rows = (await h.sql.query(`SELECT stream_id, n FROM ${table} ORDER BY n`)).rows;
        expect(rows).toEqual([1, 2, 3, 4].map((n) => ({ stream_id: s, n })));
        expect(await runner.hasReached(appended.position)).toBe(true);

        await runner.rebuild();
        expect((await h.sql.query(`SELECT stream_id, n FROM ${table} ORDER BY n`)).rows).toEqual(rows);
      });

      it('lets only one of two racing runners commit a batch', async () => {
        const s = stream('counted');
        await h.store.append(s, [{ type: 'Counted', data: { tag, n: 99 } }], 'no_stream');
        const a = new ProjectionRunner(h.sql, h.store, projection);
        const b = new ProjectionRunner(h.sql, h.store, projection);
        const outcomes = await Promise.allSettled([a.catchUp(), b.catchUp()]);
        const failures = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
        failures.forEach((f) => expect(f.reason).toMatchObject({ name: 'CheckpointConflict' }));
        await a.catchUp();
        expect((await h.sql.query(`SELECT count(*)::int AS n FROM ${table} WHERE n = 99`)).rows[0]).toEqual({ n: 1 });
      });
    });

    describe('store outage (SEC-4, WH-7)', () => {
      it('surfaces an unreachable store as StoreUnavailable', async () => {
        if (!h.unreachable) return expect(h.store.kind).not.toBe('postgres');
        const down = await h.unreachable();
        await expect(down.append(stream(), [event(1)], 'no_stream')).rejects.toBeInstanceOf(StoreUnavailable);
        await expect(down.readAll()).rejects.toBeInstanceOf(StoreUnavailable);
        await down.close().catch(() => undefined);
      });
    });
  });
}
