import { loadConfig } from '../config/config.js';
import { openInfrastructure } from '../eventstore/infrastructure.js';
import { DEFAULT_BATCH, ScheduleMaterializer } from '../scheduler/schedule-materializer.js';
import type { Composition } from './composition.js';
import { ProjectionRunner } from '../../projections/runner/projection-runner.js';
import { schedulesProjection } from '../../projections/scheduler/schedules.projection.js';
import { stringOption, UsageError } from './args.js';

type Options = Record<string, string | true>;

/** Any number may run against one database, beside or instead of `serve`: the streams decide every race. */
export async function scheduler(options: Options, composition: Composition): Promise<void> {
  const claim = stringOption(options, 'claim') ?? 'skip_locked';
  if (claim !== 'skip_locked' && claim !== 'none') throw new UsageError('--claim is "skip_locked" or "none"');
  const batchSize = Number(stringOption(options, 'batch-size') ?? DEFAULT_BATCH);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 5000)
    throw new UsageError('--batch-size is an integer from 1 to 5000');
  const config = loadConfig();
  const infra = await openInfrastructure(config, await composition.migrations());
  const index = new ProjectionRunner(infra.sql, infra.store, schedulesProjection, {
    signal: infra.signal,
    idlePollMs: 100,
  });
  const materializer = new ScheduleMaterializer({
    store: infra.store,
    sql: infra.sql,
    signal: infra.signal,
    claim,
    batchSize,
    onError: (error) => process.stderr.write(`scheduler: ${(error as Error).message}\n`),
  });
  if (options.once) {
    try {
      await index.catchUpAlongsideOthers();
      const stats = await materializer.runOnce();
      // hostNow is reported, never used: it shows which host clock the decisions did not depend on (SC-6)
      const report = {
        ...stats,
        pid: process.pid,
        dbNow: (await infra.store.now()).toISOString(),
        hostNow: new Date().toISOString(),
      };
      process.stdout.write(`${JSON.stringify(report)}\n`);
    } finally {
      await infra.close();
    }
    return;
  }
  index.subscription.start();
  materializer.start();
  process.stderr.write(`Reveille scheduler running (claim ${claim}); Ctrl-C stops it\n`);
  await new Promise<void>((resolve) =>
    ['SIGINT', 'SIGTERM'].forEach((signal) => process.once(signal, () => resolve())),
  );
  await materializer.stop();
  await index.subscription.stop();
  await infra.close();
}
