import { parentPort, workerData } from 'node:worker_threads';
import type { Wakeup } from '../../domain/execution/wakeup.js';
import { loadConfig } from '../config/config.js';
import { openInfrastructure } from '../eventstore/infrastructure.js';
import { AppendSignal } from '../../projections/runner/append-signal.js';
import type { Composition } from '../cli/composition.js';
import { DecisionNotifier, type DecisionMade } from '../../commands/admit-occurrence/decision-notifier.js';
import { ProjectionRunners } from '../runner/projection-runners.js';
import { SubscriptionRegistry } from '../runner/subscription-registry.js';
import type { FromBackground } from './messages.js';
import { runPollerWorker } from './poller-worker.js';
import { listenToHttpThread, reportFailing, reportReady } from './worker-reports.js';
import type { ThreadRole } from './thread-roles.js';
import { InProcessWakeups } from '../wakeup/in-process-wakeups.js';
import { Metrics } from '../metrics/metrics.js';

/** REVEILLE_BACKGROUND=thread: the same application without an HTTP listener, on its own event loop. */
export async function runBackgroundWorker(composition: Composition): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('background-worker runs only as a worker thread');
  const post = (message: FromBackground) => port.postMessage(message);

  // Its application never listens, and REVEILLE_BACKGROUND is read only by `serve`: the config is the HTTP thread's.
  const role = workerData as ThreadRole;
  const config = {
    ...loadConfig(),
    databasePool: role.databasePool,
    backgroundOnly: role.only,
    backgroundExcept: role.except,
  };
  if (role.name === 'poller-thread') return runPollerWorker(config, role, port, post);
  const infra = await openInfrastructure(config, await composition.migrations());
  const app = await composition.createApp(config, infra, { docsUi: false });
  const signal = app.get(AppendSignal);
  const registry = app.get(SubscriptionRegistry);

  // Decisions come in bursts: one message per turn of the event loop, not one per Occurrence.
  let decided: DecisionMade[] = [];
  app.get(DecisionNotifier).onDecided((decision) => {
    if (decided.length === 0) setImmediate(() => post({ type: 'decided', decisions: decided.splice(0) }));
    decided.push(decision);
  });
  let wakeups: Array<{ wakeup: Wakeup; position: number }> = [];
  app.get(InProcessWakeups).onNotified((wakeup, position) => {
    if (wakeups.length === 0) setImmediate(() => post({ type: 'wakeups', wakeups: wakeups.splice(0) }));
    wakeups.push({ wakeup, position });
  });
  let fireDelays: number[] = [];
  app.get(Metrics).onFireDelays((seconds) => {
    if (fireDelays.length === 0) setImmediate(() => post({ type: 'metrics', fireDelays: fireDelays.splice(0) }));
    fireDelays.push(...seconds);
  });
  for (const [name, runner] of app.get(ProjectionRunners).runners)
    runner.onFolded(() => post({ type: 'folded', projection: name }));

  const health = reportFailing(registry, post);
  listenToHttpThread(port, signal, role.reportsAppends, post, async () => {
    clearInterval(health);
    await app.close();
    await infra.close();
  });
  await reportReady(registry, post);
}
