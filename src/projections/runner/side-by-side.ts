import type { EventStore } from '../../domain/ports/event-store.js';
import type { SqlClient } from '../sql-client.js';
import type { Projection } from './projection.js';
import { ProjectionRunner } from './projection-runner.js';

/**
 * Read models fold independently of each other (those that read another's rows fold in one group), so a rebuild
 * runs several side by side: PostgreSQL then uses more than one core. A failure stops new work; the rebuilds already
 * running finish before the first error is thrown, so no caller drops a schema under a running one.
 */
export async function sideBySide<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failed = false;
  const errors: unknown[] = [];
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        await work(items[index]!, index);
      } catch (error) {
        failed = true;
        errors.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  if (errors.length > 0) throw errors[0];
}

/** Measured with `npm run bench -- audit` on 2 cores (BENCHMARKS.md, audit): more only queue on the CPU. */
export const REBUILDS_SIDE_BY_SIDE = 3;
/** Events per rebuild batch: each batch is one transaction with its checkpoint. */
export const REBUILD_BATCH = 1000;

/** `reveille projections rebuild` and the bench: each read model emptied and folded again from position 0. */
export async function rebuildReadModels(
  sql: SqlClient,
  store: EventStore,
  projections: readonly Projection[],
  report: {
    onProgress?: (projection: string, handled: number) => void;
    onRebuilt?: (projection: string, seconds: number) => void;
  } = {},
): Promise<void> {
  await sideBySide(projections, REBUILDS_SIDE_BY_SIDE, async (projection) => {
    const started = performance.now();
    await new ProjectionRunner(sql, store, projection, { batchSize: REBUILD_BATCH }).rebuild((handled) =>
      report.onProgress?.(projection.name, handled),
    );
    report.onRebuilt?.(projection.name, (performance.now() - started) / 1000);
  });
}
