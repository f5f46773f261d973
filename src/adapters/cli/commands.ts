import { Metrics } from '../metrics/metrics.js';
import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BackgroundThread } from '../background/background-thread.js';
import { EarlyWorker } from '../background/early-worker.js';
import { assertStartable, loadConfig } from '../config/config.js';
import { threadPlan, type ThreadRole } from '../background/thread-roles.js';
import { AppendSignal } from '../../projections/runner/append-signal.js';
import { openInfrastructure, openSqlClient } from '../eventstore/infrastructure.js';
import { runMigrations } from '../eventstore/sql/migrations.js';
import { SCOPES } from '../http/auth/principal.js';
import { DEFINITIONS_TOPIC } from '../ingress/definition-freshness.js';
import { CheckpointConflict } from '../../projections/runner/checkpoints.js';
import type { SqlClient } from '../../projections/sql-client.js';
import type { Composition } from './composition.js';
import { foldingOf, projections } from '../../projections/index.js';
import { DecisionNotifier } from '../../commands/admit-occurrence/decision-notifier.js';
import { ProjectionRunner } from '../../projections/runner/projection-runner.js';
import { ProjectionRunners } from '../runner/projection-runners.js';
import { SubscriptionRegistry } from '../runner/subscription-registry.js';
import { InProcessWakeups } from '../wakeup/in-process-wakeups.js';
import { stringOption, UsageError } from './args.js';
import { progress, progressGroup } from './progress.js';
import { DEV_TENANT } from './token-options.js';
import { rebuildReadModels } from '../../projections/runner/rebuild.js';
import { restoreDeferredIndexes, withReadIndexesDeferred } from '../../projections/runner/deferred-indexes.js';

type Options = Record<string, string | true>;

export async function serve(composition: Composition): Promise<void> {
  const loaded = loadConfig();
  assertStartable(loaded);
  // With worker threads, this thread's pool is a share of the process's REVEILLE_DB_POOL (the workers have the rest).
  const plan = threadPlan(loaded.backgroundOnly, loaded.databasePool);
  const config = loaded.background === 'thread' ? { ...loaded, databasePool: plan.httpPool } : loaded;
  // Each worker loads the application as this thread does: at once, not after it.
  const threads =
    config.background === 'thread'
      ? plan.roles.map((role) => ({ role, early: new EarlyWorker(composition.workerEntry, role) }))
      : [];
  const infra = await openInfrastructure(config, await composition.migrations());
  // off: an HTTP-only process (e.g. ingress nodes), another process runs admission and read models;
  // thread: they run in a worker thread of this process (see BackgroundThread).
  const app = await composition.createApp(config, infra, { startSubscriptions: config.background === 'on' });
  // process.exit after the shutdown hooks, so the embedded store's lock is removed on the way out
  app.enableShutdownHooks([], { useProcessExit: true });
  threads.forEach(({ role, early }) => startBackgroundThread(app, composition.workerEntry, role, early));
  await app.listen({ port: config.port, host: config.host });
  const store = config.databaseUrl ? 'PostgreSQL' : `embedded PostgreSQL (PGlite) in ${config.dataDir}`;
  process.stderr.write(
    `Reveille listening on ${boundAddress(app)} — events in ${config.eventstoreUrl ? 'EventStoreDB' : store}\n`,
  );
  if (config.auth.mode === 'dev') {
    process.stderr.write(
      `Development auth is on (REVEILLE_AUTH=dev). Get a token with:\n  npx reveille token --tenant ${DEV_TENANT} --scope "${SCOPES.join(' ')}"\n`,
    );
  }
}

/** What the server bound (HOST, PORT), not what a client might type: 0.0.0.0 is every interface. */
function boundAddress(app: INestApplication): string {
  const bound = (app.getHttpServer() as Server).address() as AddressInfo;
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  const every = bound.address === '0.0.0.0' || bound.address === '::' ? ' (every interface)' : '';
  return `http://${host}:${bound.port}${every}`;
}

/** Registered with the subscriptions, so /health/ready reports it and shutdown stops it. */
function startBackgroundThread(app: INestApplication, entry: URL, role: ThreadRole, early: EarlyWorker): void {
  const runners = app.get(ProjectionRunners);
  const thread = new BackgroundThread(
    app.get(AppendSignal),
    app.get(DecisionNotifier),
    (name) => runners.runners.get(name)?.notifyFolded(),
    entry,
    role,
    app.get(InProcessWakeups),
    (seconds) => app.get(Metrics).fireDelays(seconds),
  );
  app.get(SubscriptionRegistry).start(thread.startingFrom(early));
}

export async function migrate(composition: Composition): Promise<void> {
  const config = loadConfig();
  const sql = await openSqlClient(config);
  try {
    const applied = await runMigrations(sql, await composition.migrations(), (id) =>
      process.stderr.write(`applied ${id}\n`),
    );
    for (const index of await restoreDeferredIndexes(sql))
      process.stderr.write(`built index ${index} (deferred by a rebuild that did not finish)\n`);
    process.stdout.write(applied.length ? `${applied.length} migration(s) applied\n` : 'schema is up to date\n');
  } finally {
    await sql.close();
  }
}

export async function rebuildProjections(options: Options, composition: Composition): Promise<void> {
  const name = stringOption(options, 'name');
  // A read model that folds in a group is rebuilt with its group.
  const selected = name ? [foldingOf(name)].filter((p) => p !== undefined) : projections;
  const known = projections.flatMap((p) => [
    p.name,
    ...(p.members ?? []).map((m) => m.name).filter((n) => n !== p.name),
  ]);
  if (name && selected.length === 0)
    throw new UsageError(`no projection named ${name}; known: ${known.join(', ') || 'none'}`);
  const config = loadConfig();
  const sql = await openSqlClient(config);
  try {
    await refuseWhileServed(sql, config.databaseSchema);
  } catch (error) {
    await sql.close();
    throw error;
  }
  const infra = await openInfrastructure(config, await composition.migrations(), { sql });
  try {
    // The bars run to the head's position, not to a count of events: counting read the whole log first (its
    // payloads included), ≈ 10 % of a rebuild's time, and positions are what the folds report reaching.
    const total = await infra.store.headPosition();
    const bars = progressGroup();
    const shown = new Map<string, { update(done: number): void; stop(): void }>();
    // The query-only indexes are built once, after the rows are in.
    await withReadIndexesDeferred(
      infra.sql,
      selected,
      async () => {
        try {
          await rebuildReadModels(infra.sql, infra.store, selected, {
            onProgress: (name, _scanned, reached) => {
              let bar = shown.get(name);
              if (!bar) shown.set(name, (bar = bars.bar(`rebuild ${name}`, total)));
              bar.update(reached);
            },
            onRebuilt: ({ name }) => shown.get(name)?.stop(),
          });
        } catch (error) {
          // A service that started after the check (or one unseen: another role without pg_read_all_stats)
          if (error instanceof CheckpointConflict)
            throw new StoreServed(
              `${error.message}: another process folds the read models of this store (a running service?); stop it and run the rebuild again`,
            );
          throw error;
        } finally {
          bars.stop();
        }
      },
      (index) => process.stderr.write(`built index ${index}\n`),
    );
    process.stdout.write(`rebuilt ${selected.length} projection(s) from position 0\n`);
  } finally {
    await infra.close();
  }
}

/** A running service folds the same read models and advances the same checkpoints: a rebuild beside it must not run. */
export class StoreServed extends Error {
  override readonly name = 'StoreServed';
}

/**
 * PostgreSQL: every `serve` listens for definition changes of its schema from its first start, so a session
 * listening there is a running service. (The embedded store's lock refuses the same case before this.)
 */
async function refuseWhileServed(sql: SqlClient, schema: string | null): Promise<void> {
  if (!sql.notifications || !(await sql.notifications.listening(DEFINITIONS_TOPIC))) return;
  throw new StoreServed(
    `a service is running on ${schema ? `schema ${schema}` : 'this database'} (it listens for its definition changes); its projection runners advance the checkpoints a rebuild resets, so stop it first`,
  );
}
