import { ExecutionsApi } from './executions-api.js';
import { type Intake, pullLoop } from './pull-loop.js';
import { RedisIntake } from './redis-intake.js';
import { runExecution } from './run-execution.js';
import { Slots } from './slots.js';
import type { WorkerEvent, WorkerOptions } from './worker-options.js';

export interface Worker {
  /** Takes no new work, waits for the running handlers (and a long poll in flight) and resolves. */
  stop(): Promise<void>;
  /** Resolves when the worker has stopped, however it was stopped. */
  readonly stopped: Promise<void>;
}

const MAX_WAIT_SECONDS = 20;

/** A consumer of a Reveille service: claims executions, runs `handler` on each, completes or settles them. */
export function createWorker(options: WorkerOptions): Worker {
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  const waitSeconds = Math.min(MAX_WAIT_SECONDS, Math.max(0, options.waitSeconds ?? MAX_WAIT_SECONDS));
  const api = new ExecutionsApi(options.baseUrl, options.token);
  const slots = new Slots(concurrency);
  const stopping = new AbortController();
  const report = (event: WorkerEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // A failing listener must not stop the worker or leave a claim uncompleted.
    }
  };
  const intake: Intake = {
    api,
    consumerId: options.consumerId,
    filter: {
      ...(options.missionId === undefined ? {} : { missionId: options.missionId }),
      ...(options.triggerId === undefined ? {} : { triggerId: options.triggerId }),
    },
    waitSeconds,
    stopped: () => stopping.signal.aborted,
    run: (claim) => slots.run(() => runExecution(api, claim, options.handler, stopping.signal, report)),
    report,
  };
  const redis = options.redis ? new RedisIntake(options.redis, intake, slots) : undefined;
  const loops = redis ? [redis.loop()] : Array.from({ length: concurrency }, () => pullLoop(intake));
  const stopped = Promise.all(loops)
    .then(() => slots.whenIdle())
    .finally(async () => {
      await redis?.close();
      api.close();
    });

  const stop = async () => {
    if (!stopping.signal.aborted) {
      stopping.abort();
      redis?.interrupt();
    }
    await stopped;
  };
  options.signal?.addEventListener('abort', () => void stop(), { once: true });
  if (options.signal?.aborted) void stop();
  return { stop, stopped };
}
