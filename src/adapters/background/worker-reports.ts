import type { MessagePort } from 'node:worker_threads';
import type { AppendSignal } from '../../projections/runner/append-signal.js';
import type { SubscriptionRegistry } from '../runner/subscription-registry.js';
import { AppendBurst, type FromBackground, type ToBackground } from './messages.js';

export type Post = (message: FromBackground) => void;

/** Failing tasks, sent when the list changes (checked once a second); the interval is returned for shutdown. */
export function reportFailing(registry: SubscriptionRegistry, post: Post): NodeJS.Timeout {
  let reported = '[]';
  return setInterval(() => {
    const now = registry.failing();
    const text = JSON.stringify(now);
    if (text === reported) return;
    reported = text;
    post({ type: 'failing', failing: now });
  }, 1_000);
}

/**
 * The HTTP thread's messages: its appends are signalled here (not reported back: `reportsAppends` skips them),
 * and 'stop' ends the thread after `close`.
 */
export function listenToHttpThread(
  port: MessagePort,
  signal: AppendSignal,
  reportsAppends: boolean,
  post: Post,
  close: () => Promise<void>,
): void {
  let forwarded = false;
  if (reportsAppends) reportAppends(signal, post, () => forwarded);
  port.on('message', async (message: ToBackground) => {
    if (message.type === 'appended') {
      forwarded = true;
      try {
        return signal.notify(message.types, message.position);
      } finally {
        forwarded = false;
      }
    }
    await close();
    process.exit(0); // in a worker thread: ends this thread only
  });
}

/** This thread's appends in one burst share one message, naming every event type (or none when one is unknown). */
function reportAppends(signal: AppendSignal, post: Post, forwarded: () => boolean): void {
  const burst = new AppendBurst();
  let pending = false;
  signal.onNotify((types, position) => {
    if (forwarded()) return;
    if (!pending) {
      pending = true;
      setImmediate(() => {
        pending = false;
        post(burst.take());
      });
    }
    burst.add(types, position);
  });
}

/** 'ready' means running: every task has ended a first pass (connections made, code loaded), not merely started. */
export async function reportReady(registry: SubscriptionRegistry, post: Post): Promise<void> {
  while (registry.starting().length > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  post({ type: 'ready', running: registry.names() });
}
