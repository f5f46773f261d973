import { Worker } from 'node:worker_threads';
import type { LogChecker } from '../../commands/audit/verify-log.js';
import type { AuditSummary } from '../../domain/audit/audit-rules.js';
import { type UpcastOutcome, upcastOutcome } from '../../domain/audit/log-audit.js';
import type { RecordedEvent } from '../../domain/ports/event-store.js';

/** To the log pass's thread: a page as stored, with how the replay sees the events an upcaster changes (AU-3). */
export type ToLogPass =
  | { type: 'page'; events: readonly RecordedEvent[]; upcasts: Array<[index: number, outcome: UpcastOutcome]> }
  | { type: 'end' };

export type FromLogPass = { type: 'checked' } | { type: 'summary'; summary: AuditSummary };

/** Pages posted and not yet checked: the read runs this far ahead of the thread and no further. */
const PAGES_AHEAD = 4;

/** The thread's entry, beside this file in the build. */
export const LOG_PASS_THREAD = new URL('./audit-log-pass-thread.js', import.meta.url);

/**
 * AU-2's log pass (chains, replay, invariants) in a thread of its own, so the CPU it spends per event (hashes,
 * canonical JSON, the domain replay) runs beside the scratch rebuild's folds instead of between them. Upcasters
 * are functions, which no thread can be sent: they run here, and only what they change crosses.
 */
export class ThreadLogChecker implements LogChecker {
  private readonly worker: Worker;
  private outstanding = 0;
  private failure: Error | null = null;
  private resume: (() => void) | null = null;
  private summarized: ((summary: AuditSummary) => void) | null = null;
  private failed: ((error: Error) => void) | null = null;

  constructor(
    private readonly upcast: (event: RecordedEvent) => RecordedEvent,
    entry: URL = LOG_PASS_THREAD,
  ) {
    // The young generation sized as `audit verify` sizes the main thread's (batch-heap.ts): pages are garbage a page later.
    this.worker = new Worker(entry, { resourceLimits: { maxYoungGenerationSizeMb: 192 } });
    this.worker.on('message', (message: FromLogPass) => this.receive(message));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the log pass thread exited (code ${code})`)));
  }

  async check(page: readonly RecordedEvent[]): Promise<void> {
    if (page.length === 0) return;
    while (this.outstanding >= PAGES_AHEAD && !this.failure) await new Promise<void>((r) => (this.resume = r));
    if (this.failure) throw this.failure;
    const upcasts: Array<[number, UpcastOutcome]> = [];
    page.forEach((event, index) => {
      const outcome = upcastOutcome(this.upcast, event);
      if (!('event' in outcome) || outcome.event !== event) upcasts.push([index, outcome]);
    });
    this.outstanding += 1;
    this.post({ type: 'page', events: page, upcasts });
  }

  summary(): Promise<AuditSummary> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.summarized = resolve;
      this.failed = reject;
      this.post({ type: 'end' });
    });
  }

  /** Always, once the pass is over or has failed. */
  async close(): Promise<void> {
    this.failure ??= new Error('the log pass thread was closed');
    await this.worker.terminate();
  }

  private post(message: ToLogPass): void {
    this.worker.postMessage(message);
  }

  private receive(message: FromLogPass): void {
    if (message.type === 'checked') {
      this.outstanding -= 1;
      this.wake();
    } else this.summarized?.(message.summary);
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.wake();
    this.failed?.(this.failure);
  }

  private wake(): void {
    const resume = this.resume;
    this.resume = null;
    resume?.();
  }
}
