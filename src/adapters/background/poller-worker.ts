import type { MessagePort } from 'node:worker_threads';
import type { ReveilleConfig } from '../config/config.js';
import { openInfrastructure } from '../eventstore/infrastructure.js';
import { ServiceLogger } from '../http/logging/service-logger.js';
import { HttpJsonConnector } from '../poll/http-json-connector.js';
import { PollLoop } from '../poll/poll-loop.js';
import { SubscriptionRegistry } from '../runner/subscription-registry.js';
import { PollSecretStore } from '../poll/poll-secret-store.js';
import { listenToHttpThread, type Post, reportFailing, reportReady } from './worker-reports.js';
import type { ThreadRole } from './thread-roles.js';

/**
 * The poller thread runs the poll loop alone: its store, its pool and the loop, without the application the
 * background thread builds (which would cost this thread ≈ 90 MB more for modules it never uses).
 */
export async function runPollerWorker(
  config: ReveilleConfig,
  role: ThreadRole,
  port: MessagePort,
  post: Post,
): Promise<void> {
  // `serve` migrated before it started this thread; the application's module graph is never loaded here.
  const infra = await openInfrastructure(config, []);
  const logger = new ServiceLogger(config.logLevel);
  const loop = new PollLoop({
    store: infra.store,
    sql: infra.sql,
    connector: new HttpJsonConnector(),
    secrets: new PollSecretStore(infra.sql, config),
    onError: (error) => logger.error(`poller: ${(error as Error).message}`, 'Poller'),
  });
  // The same registry as the application's: readiness, failures and shutdown as the background thread reports them.
  const registry = new SubscriptionRegistry(config);
  registry.start(loop);
  const health = reportFailing(registry, post);
  listenToHttpThread(port, infra.signal, role.reportsAppends, post, async () => {
    clearInterval(health);
    await registry.onApplicationShutdown();
    await infra.close();
  });
  await reportReady(registry, post);
}
