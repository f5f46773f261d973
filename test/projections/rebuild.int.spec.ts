import type { ExecutionEvent } from '../../src/domain/execution/index.js';
import { projections } from '../../src/projections/index.js';
import { executionsProjection } from '../../src/projections/executions/executions.projection.js';
import { loadCheckpoint } from '../../src/projections/runner/checkpoints.js';
import { PageChannel } from '../../src/projections/runner/page-channel.js';
import { rebuildReadModels } from '../../src/projections/runner/rebuild.js';
import {
  admittedEvent,
  appendExecutionEvent,
  appendOccurrence,
  appendTrigger,
  blockedEvent,
  occurrence,
  triggerRevised,
} from './fixtures.js';
import { crashingProjection, type DbKind, openHarness, type ProjectionHarness } from './harness.js';

const at = (second: number) => new Date(Date.UTC(2026, 2, 1, 10, 0, second)).toISOString();
const dumpAll = async (h: ProjectionHarness) =>
  Object.fromEntries(await Promise.all(projections.map(async (p) => [p.name, await h.dump(p)] as const)));

/**
 * OP-3: a rebuild reads the log once for all read models (or folds pages read elsewhere: audit verify's log pass)
 * and folds every page into each of them in its own transactions; the rows must be the ones each read model's own
 * runner folds.
 */
describe.each<DbKind>(['postgres', 'pglite'])('OP-3 rebuild from shared log reads (%s)', (kind) => {
  let h: ProjectionHarness;
  let live: Record<string, unknown>;

  beforeAll(async () => {
    h = await openHarness(kind, projections);
    await appendTrigger(h.store, 'acme', 't-1', [triggerRevised('acme', 't-1', 1)]);
    for (let n = 0; n < 24; n++) {
      const o = occurrence({ triggerId: 't-1', key: `k-${n}`, observedAt: at(n) });
      await appendOccurrence(
        h.store,
        o,
        n % 5 === 4 ? blockedEvent(o, 'rate_limited', { limit: 1 }) : admittedEvent(o, `e-${n}`, at(n)),
      );
    }
    // Executions' events come after all Occurrences, so pages of 3 hold only some read models' events.
    for (let n = 0; n < 24; n += 2) {
      if (n % 5 === 4) continue;
      const life = {
        tenant: 'acme',
        missionId: 'm-1',
        triggerId: 't-1',
        executionId: `e-${n}`,
        generation: 1,
        attempt: 1,
      };
      const event = (type: ExecutionEvent['type'], data: Record<string, unknown>) =>
        ({ type, data: { ...life, at: at(30 + n), ...data } }) as ExecutionEvent;
      await appendExecutionEvent(h.store, 'acme', event('ExecutionClaimed', { fence: 1, consumerId: 'w-1' }));
      if (n % 4 === 0)
        await appendExecutionEvent(
          h.store,
          'acme',
          event('ExecutionCompleted', { fence: 1, outcome: 'succeeded', retryable: false, error: null, receipt: null }),
        );
    }
    await h.catchUp();
    live = await dumpAll(h);
  }, 60_000);

  afterAll(() => h?.close());

  it('leaves every read model as its own runner folded it, each checkpoint at the head, with progress per read model', async () => {
    const progress = new Map<string, number>();
    const reaching = new Map<string, number>();
    const rebuilt: string[] = [];
    await rebuildReadModels(h.sql, h.store, projections, {
      pageSize: 3,
      onProgress: (name, scanned, reached) => {
        expect(scanned).toBeGreaterThan(progress.get(name) ?? 0);
        expect(reached).toBeGreaterThan(reaching.get(name) ?? 0);
        progress.set(name, scanned);
        reaching.set(name, reached);
      },
      onRebuilt: ({ name }) => void rebuilt.push(name),
    });
    expect(await dumpAll(h)).toEqual(live);
    expect((live['executions'] as Record<string, unknown[]>)['rm_executions']).toHaveLength(20);
    const head = await h.store.headPosition();
    for (const p of projections) expect(await loadCheckpoint(h.sql, `projection:${p.name}`)).toBe(head);
    expect(rebuilt.sort()).toEqual(projections.map((p) => p.name).sort());
    // One read for all: every read model saw the same events go by.
    const events = (await h.store.readAll({ maxCount: 10_000 })).length;
    expect(new Set(progress.values())).toEqual(new Set([events]));
    // What `projections rebuild` shows against the head's position: every bar ends at it.
    expect(new Set(reaching.values())).toEqual(new Set([head]));
  });

  /** The log as audit verify's log pass hands it over: pages of 3, put one by one into `pages`. */
  const handIn = async (pages: PageChannel, options: { breakAfter?: number } = {}) => {
    const log = await h.store.readAll({ maxCount: 10_000 });
    for (let i = 0, n = 0; i < log.length; i += 3, n++) {
      if (n === options.breakAfter) return pages.break();
      const events = log.slice(i, i + 3);
      await pages.put({ events, scanned: events.length, last: events[events.length - 1]!.position });
    }
    pages.end();
  };

  it('folds pages handed in without reading the log itself, and leaves the same rows', async () => {
    let reads = 0;
    const counted = new Proxy(h.store, {
      get: (store, name) =>
        name === 'readAll' || name === 'readAllOf'
          ? (...args: unknown[]) => (reads++, (store[name] as (...a: unknown[]) => unknown).apply(store, args))
          : Reflect.get(store, name),
    });
    const pages = new PageChannel(4);
    await Promise.all([rebuildReadModels(h.sql, counted, projections, { pageSize: 3, pages }), handIn(pages)]);
    expect(reads).toBe(0);
    expect(await dumpAll(h)).toEqual(live);
  });

  it('a fold failing breaks the pages handed in: their writer, waiting at a full channel, returns', async () => {
    const failing = projections.map((p) => (p === executionsProjection ? crashingProjection(p, 7) : p));
    const pages = new PageChannel(2);
    const writer = handIn(pages);
    await expect(rebuildReadModels(h.sql, h.store, failing, { pageSize: 3, pages })).rejects.toThrow('simulated crash');
    await writer;
    expect(pages.open).toBe(false);
    await rebuildReadModels(h.sql, h.store, projections, { pageSize: 3 });
  });

  it('pages broken off by their writer fail the rebuild instead of leaving its read models short', async () => {
    const pages = new PageChannel(4);
    const writer = handIn(pages, { breakAfter: 5 });
    await expect(rebuildReadModels(h.sql, h.store, projections, { pageSize: 3, pages })).rejects.toThrow(
      'the shared log read stopped before the end of the log',
    );
    await writer;
    await rebuildReadModels(h.sql, h.store, projections, { pageSize: 3 });
    expect(await dumpAll(h)).toEqual(live);
  });

  it('every index a read model says only queries use is one its migrations create (audit verify drops each)', async () => {
    const named = projections.flatMap((p) => p.readIndexes ?? []);
    expect(named.length).toBeGreaterThan(0);
    const { rows } = await h.sql.query<{ name: string }>(
      `SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ANY($1::text[])`,
      [named],
    );
    expect(rows.map((r) => r.name).sort()).toEqual([...named].sort());
  });

  it('a fold failing stops every read and fold and throws its error; a rebuild afterwards is whole again', async () => {
    const failing = projections.map((p) => (p === executionsProjection ? crashingProjection(p, 7) : p));
    const rebuilt: string[] = [];
    await expect(
      rebuildReadModels(h.sql, h.store, failing, { pageSize: 3, onRebuilt: ({ name }) => void rebuilt.push(name) }),
    ).rejects.toThrow('simulated crash');
    expect(rebuilt).not.toContain('executions');
    // It stopped short: the read model is not at the head and holds fewer rows than the live one had.
    const head = await h.store.headPosition();
    expect(await loadCheckpoint(h.sql, 'projection:executions')).toBeLessThan(head);

    await rebuildReadModels(h.sql, h.store, projections, { pageSize: 3 });
    expect(await dumpAll(h)).toEqual(live);
  });
});
