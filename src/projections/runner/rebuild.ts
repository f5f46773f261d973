import type { EventStore, FilteredPage } from '../../domain/ports/event-store.js';
import type { SqlClient } from '../sql-client.js';
import { PageChannel } from './page-channel.js';
import { sharedOmits } from './projection-group.js';
import type { Projection } from './projection.js';
import { ProjectionRunner } from './projection-runner.js';
import { readPage } from './subscription.js';

/** Events per rebuild page: each read model folds a page in one transaction with its checkpoint. */
export const REBUILD_BATCH = 1000;
/** How far the log read may run ahead of the slowest fold, in pages (memory: this many pages per read model). */
const PAGES_AHEAD = 4;
/** How long the read may find nothing new while the head seen at the start is still ahead (open transactions). */
const STALL_MS = 30_000;

export interface RebuildOptions {
  /** Events per page (REBUILD_BATCH). */
  pageSize?: number;
  /** Events of the log a read model has passed so far, and the log position it has reached (what a bar of the head shows). */
  onProgress?: (projection: string, scanned: number, reached: number) => void;
  /** Awaited before the rebuild ends; a read model's rows are final when it is called. */
  onRebuilt?: (projection: Projection, seconds: number) => void | Promise<void>;
  /**
   * The whole log from position 0, upcast, as another pass reads it (audit verify's log pass): folded from these
   * pages instead of reading the log again. Ended by its writer at the log's end; broken if that pass fails.
   */
  pages?: PageChannel;
}

interface Lane {
  runner: ProjectionRunner;
  channel: PageChannel;
}

/**
 * `reveille projections rebuild`, audit verify's scratch rebuild and the bench: every read model emptied and folded
 * again from position 0 (OP-3), all at once. The log is read once for all read models, not once each (ten reads
 * of a million events were most of a rebuild's work), or not at all when a caller hands in its pages; each read
 * model folds the pages in its own transactions, so PostgreSQL works on several at a time. A failure stops every
 * read and fold; the first error is thrown once all have stopped, so no caller drops a schema under a running fold.
 */
export async function rebuildReadModels(
  sql: SqlClient,
  store: EventStore,
  projections: readonly Projection[],
  options: RebuildOptions = {},
): Promise<void> {
  const pageSize = options.pageSize ?? REBUILD_BATCH;
  const lanes: Lane[] = projections.map((projection) => ({
    runner: new ProjectionRunner(sql, store, projection, { batchSize: pageSize }),
    channel: new PageChannel(PAGES_AHEAD),
  }));
  for (const { runner } of lanes) await runner.reset();
  const target = await store.headPosition();
  const stopAll = (error: unknown) => {
    lanes.forEach(({ channel }) => channel.break());
    throw error;
  };
  const read = options.pages ? fanOut(options.pages, lanes) : readLog(store, lanes, target, pageSize);
  const settled = await Promise.allSettled([
    read.catch(stopAll),
    ...lanes.map((lane) => foldPages(lane, options).catch(stopAll)),
  ]);
  // A writer still putting pages must not wait for a fold that is gone.
  options.pages?.break();
  const failure = settled.find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
}

/** Each read model gets every page, with the events it folds; the slowest fold paces the read. */
function handOut(lanes: readonly Lane[]): (page: FilteredPage) => Promise<void> {
  const handled = lanes.map(({ runner }) => new Set(runner.projection.handles));
  return async (page) => {
    for (const [i, { channel }] of lanes.entries())
      await channel.put({ ...page, events: page.events.filter((event) => handled[i]!.has(event.type)) });
  };
}

/** The pages of a read made elsewhere (RebuildOptions.pages). */
async function fanOut(pages: PageChannel, lanes: readonly Lane[]): Promise<void> {
  const put = handOut(lanes);
  try {
    for (let page = await pages.take(); page; page = await pages.take()) await put(page);
    if (!pages.open) throw new Error('rebuild: the shared log read stopped before the end of the log');
  } finally {
    lanes.forEach(({ channel }) => channel.end());
  }
}

/**
 * One read of the log for every read model: the event types any of them folds, without the payload paths none of
 * them reads (a read per set of left-out paths cost PostgreSQL more than the payloads cost Node). The next page is
 * read while this one is handed out.
 */
async function readLog(store: EventStore, lanes: readonly Lane[], target: number, pageSize: number): Promise<void> {
  const types = [...new Set(lanes.flatMap(({ runner }) => runner.projection.handles))];
  const omitData = sharedOmits(lanes.map(({ runner }) => runner.projection));
  const read = (after: number) => {
    const page = readPage(store, after, { types, omitData, maxCount: pageSize });
    // Awaited on the next turn; a hand-out that throws first must not leave it an unhandled rejection.
    page.catch(() => undefined);
    return page;
  };
  const put = handOut(lanes);
  let stalledSince = Date.now();
  try {
    for (let after = 0, next = read(0); lanes.some(({ channel }) => channel.open);) {
      const page = await next;
      if (page.last !== null) {
        after = page.last;
        next = read(after);
        await put(page);
        stalledSince = Date.now();
        continue;
      }
      // An empty page is not the end: events wait behind older open transactions (decision 3, docs/architecture.md).
      if (target === 0 || (await store.isAtOrBefore(target, after))) return;
      if (Date.now() - stalledSince > STALL_MS)
        throw new Error(`rebuild: the log read stalled behind an open transaction for ${STALL_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
      next = read(after);
    }
  } finally {
    lanes.forEach(({ channel }) => channel.end());
  }
}

/** A page without an event it folds writes nothing: the checkpoint moves with the next one that has, or at the end. */
async function foldPages({ runner, channel }: Lane, report: RebuildOptions): Promise<void> {
  const started = performance.now();
  const { name } = runner.projection;
  let stored = 0;
  let reached = 0;
  let scanned = 0;
  for (let page = await channel.take(); page; page = await channel.take()) {
    reached = page.last!;
    scanned += page.scanned;
    if (runner.folds(page.events)) {
      await runner.fold(page.events, stored, reached);
      stored = reached;
    }
    report.onProgress?.(name, scanned, reached);
  }
  if (!channel.open) return;
  if (stored !== reached) await runner.fold([], stored, reached);
  await report.onRebuilt?.(runner.projection, (performance.now() - started) / 1000);
}
