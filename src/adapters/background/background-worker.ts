import { parentPort, workerData } from 'node:worker_threads';
import type { Wakeup } from '../../domain/execution/wakeup.js';
import { loadConfig } from '../config/config.js';
import { openInfrastructure } from '../eventstore/infrastructure.js';
import { AppendSignal } from '../../projections/runner/append-signal.js';
import type { Composition } from '../cli/composition.js';
import { DecisionNotifier, type DecisionMade } from '../../commands/admit-occurrence/decision-notifier.js';
import { ProjectionRunners } from '../runner/projection-runners.js';
import { SubscriptionRegistry } from '../runner/subscription-registry.js';
import type { FromBackground, ToBackground } from './messages.js';
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

  let reported = '[]';
  const health = setInterval(() => {
    const failing = registry.failing();
    const now = JSON.stringify(failing);
    if (now === reported) return;
    reported = now;
    post({ type: 'failing', failing });
  }, 1_000);

  let forwarded = false;
  if (role.reportsAppends) reportAppends(signal, post, () => forwarded);
  port.on('message', async (message: ToBackground) => {
    if (message.type === 'appended') {
      forwarded = true;
      try {
        return signal.notify(message.types);
      } finally {
        forwarded = false;
      }
    }
    clearInterval(health);
    await app.close();
    await infra.close();
    process.exit(0); // in a worker thread: ends this thread only
  });
  // 'ready' means running: every task has ended a first pass (connections made, code loaded), not merely started.
  while (registry.starting().length > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  post({ type: 'ready', running: registry.names() });
}

/** This thread's appends in one burst share one message, naming every event type (or none when one is unknown). */
function reportAppends(signal: AppendSignal, post: (message: FromBackground) => void, forwarded: () => boolean): void {
  let types: Set<string> | null = null;
  let pending = false;
  signal.onNotify((appended) => {
    if (forwarded()) return;
    if (!pending) {
      pending = true;
      types = new Set();
      setImmediate(() => {
        pending = false;
        post({ type: 'appended', ...(types ? { types: [...types] } : {}) });
      });
    }
    if (!appended) types = null;
    else appended.forEach((type) => types?.add(type));
  });
}
