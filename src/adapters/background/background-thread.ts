import { Logger } from '@nestjs/common';
import { Worker } from 'node:worker_threads';
import type { AppendSignal } from '../../projections/runner/append-signal.js';
import type { DecisionNotifier } from '../../commands/admit-occurrence/decision-notifier.js';
import type { BackgroundTask } from '../runner/subscription-registry.js';
import type { FromBackground, ToBackground } from './messages.js';

const STOP_GRACE_MS = 10_000;
const MAX_RESTART_DELAY_MS = 30_000;

/**
 * Runs admission, read models and schedules in a worker thread of this process (REVEILLE_BACKGROUND=
 * thread), so their folds never stall the HTTP event loop, as a second process would but without
 * one to deploy. The worker hears of this thread's appends at once; its decisions wake this thread's
 * `?wait=decision` requests and its folds drop this thread's caches. A worker that dies is started
 * again (with growing delays) and reported failing on /health/ready meanwhile: what it had not folded
 * or decided yet is still in the log, where the new one resumes from its checkpoints.
 */
export class BackgroundThread implements BackgroundTask {
  readonly name = 'background-thread';
  private readonly logger = new Logger('BackgroundThread');
  private worker: Worker | null = null;
  private stopping = false;
  private failures = 0;
  private problem: string | null = 'starting';
  private remoteFailing: Array<{ name: string; error: string }> = [];
  remoteTasks: string[] = [];

  constructor(
    private readonly signal: AppendSignal,
    private readonly notifier: DecisionNotifier,
    /** A read model the thread folded: caches built on it here must drop what they hold. */
    private readonly folded: (projection: string) => void,
    /** The worker's module: the process entry, which runs runBackgroundWorker off the main thread. */
    private readonly entry: URL,
  ) {}

  get error(): unknown {
    if (this.problem) return new Error(`background thread: ${this.problem}`);
    if (this.remoteFailing.length === 0) return null;
    return new Error(this.remoteFailing.map((f) => `${f.name}: ${f.error}`).join('; '));
  }

  start(): void {
    this.stopping = false;
    this.spawn();
    void this.forwardAppends();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    this.send({ type: 'stop' });
    const timer = setTimeout(() => void worker.terminate(), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }

  private spawn(): void {
    const worker = new Worker(this.entry);
    this.worker = worker;
    worker.on('message', (message: FromBackground) => this.receive(message));
    worker.on('error', (error) => {
      this.problem = `failed: ${error.message}`;
      this.logger.error(this.problem);
    });
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = null;
      if (this.stopping) return;
      this.failures++;
      this.problem ??= `exited with code ${code}`;
      const delay = Math.min(1_000 * 2 ** (this.failures - 1), MAX_RESTART_DELAY_MS);
      this.logger.error(`${this.problem}; starting it again in ${delay} ms`);
      setTimeout(() => this.stopping || this.spawn(), delay).unref();
    });
  }

  private receive(message: FromBackground): void {
    switch (message.type) {
      case 'ready':
        [this.problem, this.failures, this.remoteTasks] = [null, 0, message.running];
        return;
      case 'failing':
        this.remoteFailing = message.failing;
        return;
      case 'decided':
        return message.occurrenceIds.forEach((id) => this.notifier.decided(id));
      case 'folded':
        return this.folded(message.projection);
    }
  }

  /** One message per wake-up of this thread's append signal: appends in one burst share it. */
  private async forwardAppends(): Promise<void> {
    while (!this.stopping) {
      await this.signal.wait(1_000);
      this.send({ type: 'appended' });
    }
  }

  private send(message: ToBackground): void {
    this.worker?.postMessage(message);
  }
}
