import { Logger } from '@nestjs/common';
import { Worker } from 'node:worker_threads';
import type { AppendSignal } from '../../projections/runner/append-signal.js';
import type { DecisionNotifier } from '../../commands/admit-occurrence/decision-notifier.js';
import type { BackgroundTask } from '../runner/subscription-registry.js';
import type { InProcessWakeups } from '../wakeup/in-process-wakeups.js';
import type { EarlyWorker } from './early-worker.js';
import { AppendBurst, type FromBackground, type ToBackground } from './messages.js';
import type { ThreadRole } from './thread-roles.js';

const STOP_GRACE_MS = 10_000;
const MAX_RESTART_DELAY_MS = 30_000;

/**
 * Folds off the HTTP event loop without a second process to deploy. A worker that dies is restarted (growing
 * delays) and reported on /health/ready meanwhile: its unfinished work is still in the log, past its checkpoints.
 */
export class BackgroundThread implements BackgroundTask {
  private readonly logger = new Logger('BackgroundThread');
  private worker: Worker | null = null;
  private stopping = false;
  private failures = 0;
  private problem: string | null = 'starting';
  private remoteFailing: Array<{ name: string; error: string }> = [];
  remoteTasks: string[] = [];
  /** This thread's appends since the last 'appended' message sent to the worker. */
  private readonly appended = new AppendBurst();
  private listening = false;
  /** Until the worker first says its tasks have run: readiness waits (OP-4). */
  private up = false;
  /** While this worker's own appends are signalled here: they are not sent back to it. */
  private echoing = false;
  /** Started before this thread's application was built (`serve`); spawned by the first start. */
  private early: EarlyWorker | null = null;

  constructor(
    private readonly signal: AppendSignal,
    private readonly notifier: DecisionNotifier,
    /** Caches built here on that read model must drop what they hold. */
    private readonly folded: (projection: string) => void,
    private readonly entry: URL,
    private readonly role: ThreadRole,
    /** `claim-next` waits on the HTTP thread; the wakeup dispatcher runs in the worker. */
    private readonly wakeups?: InProcessWakeups,
    /** The worker's schedule fire delays, into the registry /metrics serves. */
    private readonly fireDelays?: (seconds: readonly number[]) => void,
  ) {}

  get name(): string {
    return this.role.name;
  }

  get error(): unknown {
    if (this.problem) return new Error(`background thread: ${this.problem}`);
    if (this.remoteFailing.length === 0) return null;
    return new Error(this.remoteFailing.map((f) => `${f.name}: ${f.error}`).join('; '));
  }

  get starting(): boolean {
    return !this.up;
  }

  /** The first start takes this worker over instead of spawning one. */
  startingFrom(early: EarlyWorker): this {
    this.early = early;
    return this;
  }

  start(): void {
    this.stopping = false;
    this.spawn();
    if (this.role.receivesAppends) void this.forwardAppends();
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
    const early = this.early?.takeOver() ?? null;
    this.early = null;
    const worker = early?.worker ?? new Worker(this.entry, { workerData: this.role });
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
    early?.held.forEach((message) => this.receive(message));
  }

  private receive(message: FromBackground): void {
    switch (message.type) {
      case 'ready':
        [this.problem, this.failures, this.remoteTasks, this.up] = [null, 0, message.running, true];
        return;
      case 'failing':
        this.remoteFailing = message.failing;
        return;
      case 'decided':
        return message.decisions.forEach((decision) => this.notifier.decided(decision));
      case 'wakeups':
        return message.wakeups.forEach(({ wakeup, position }) => this.wakeups?.notify(wakeup, position));
      case 'folded':
        return this.folded(message.projection);
      case 'metrics':
        return this.fireDelays?.(message.fireDelays);
      case 'appended':
        this.echoing = true;
        try {
          return this.signal.notify(message.types, message.position);
        } finally {
          this.echoing = false;
        }
    }
  }

  /** Appends in one burst share one message, naming every event type they appended (the worker's waiters filter by type). */
  private async forwardAppends(): Promise<void> {
    if (!this.listening) {
      this.listening = true;
      this.signal.onNotify((types, position) => {
        if (!this.echoing) this.appended.add(types, position);
      });
    }
    while (!this.stopping) {
      await this.signal.wait(1_000);
      this.send(this.appended.take());
    }
  }

  private send(message: ToBackground): void {
    this.worker?.postMessage(message);
  }
}
