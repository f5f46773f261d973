import { Worker } from 'node:worker_threads';
import type { FromBackground } from './messages.js';
import type { ThreadRole } from './thread-roles.js';

/**
 * A worker started before the HTTP thread builds its application, so both load the code at once: each load is
 * ≈ 2 s of CPU, and one after the other they doubled `serve`'s start. What it says before its BackgroundThread
 * takes it over is held, and an error then is not thrown in this thread (an EventEmitter without an 'error'
 * listener would).
 */
export class EarlyWorker {
  private readonly worker: Worker;
  private readonly held: FromBackground[] = [];
  private readonly hold = (message: FromBackground) => void this.held.push(message);
  private readonly ignoreError = () => undefined;

  constructor(entry: URL, role: ThreadRole) {
    this.worker = new Worker(entry, { workerData: role });
    this.worker.on('message', this.hold).on('error', this.ignoreError);
  }

  /**
   * The worker and what it said meanwhile, once: null if it has stopped already, and the taker starts another
   * (its listeners then see that one's failures). The listeners go on the worker in the same turn, so nothing is
   * missed between.
   */
  takeOver(): { worker: Worker; held: FromBackground[] } | null {
    this.worker.off('message', this.hold).off('error', this.ignoreError);
    if (this.worker.threadId === -1) return null;
    return { worker: this.worker, held: this.held.splice(0) };
  }
}
