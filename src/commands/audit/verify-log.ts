import { LogAuditor } from '../../domain/audit/log-audit.js';
import type { AuditSummary } from '../../domain/audit/audit-rules.js';
import { occurrenceIdOf } from '../../domain/execution/execution.js';
import type { EventStore, RecordedEvent } from '../../domain/ports/event-store.js';
import { occurrenceStream } from '../../domain/shared/ids.js';
import { requestCarriedBy } from '../../domain/occurrence/occurrence-events.js';

/** Where the pass's pages are checked: in this thread by default, or handed to another (from position 0 only). */
export interface LogChecker {
  /** May wait: a checker too many pages behind holds the read back. */
  check(page: readonly RecordedEvent[]): Promise<void>;
  summary(): Promise<AuditSummary>;
}

export interface VerifyLogOptions {
  /** Check the events after this position; the streams' earlier events are read as context. */
  from?: number;
  pageSize?: number;
  upcast?: (event: RecordedEvent) => RecordedEvent;
  onProgress?: (checked: number) => void;
  /** Each page as read (stored form), before it is checked; awaited, so a slower reader of the pages paces the pass. */
  onPage?: (events: readonly RecordedEvent[]) => Promise<void>;
  /** How long the pass waits for an open transaction to stop holding back the head it started at (default 30 s). */
  heldBackMs?: number;
  /**
   * Checks the pages instead of a LogAuditor here. Not with `from`: a stream first met past it is seeded from
   * reads of this thread's store.
   */
  checker?: LogChecker;
}

/** The log's end as of the pass's start was not readable before the deadline: a transaction stayed open over it. */
export class LogHeldBackError extends Error {
  constructor(
    readonly head: number,
    readonly checkedTo: number,
    waitedMs: number,
  ) {
    super(
      `the log up to position ${head} stayed held back behind an open transaction for ${waitedMs} ms; ` +
        `checked up to position ${checkedTo} only — run again once it has committed or rolled back`,
    );
    this.name = 'LogHeldBack';
  }
}

/**
 * AU-2 over the whole log: read in the store's order page by page (never held in memory) as stored, and fed
 * to the domain's auditor. With `from`, a stream first met past it is read up to there first, so its chain and
 * its replay start where they truly are.
 *
 * The pass ends at the head as of its start, never short of it: readAll holds back events behind any transaction
 * still open in the database (the store's rule 1), and a verdict that silently left committed events out would
 * be a false "no violations". Until the head shows, a short page is read again from where it ended.
 */
export async function verifyLog(store: EventStore, options: VerifyLogOptions = {}): Promise<AuditSummary> {
  if (options.checker && options.from) throw new Error('verifyLog: a checker elsewhere cannot check from a position');
  const auditor = new LogAuditor(options.upcast);
  const pageSize = options.pageSize ?? 2000;
  const heldBackMs = options.heldBackMs ?? 30_000;
  const head = await store.headPosition();
  let checked = 0;
  let lastRead = options.from ?? 0;
  let heldBackSince: number | null = null;
  const read = (after: number) => store.readAll({ after, maxCount: pageSize, raw: true });
  // The next page is read while this one is checked: the pass costs the larger of the two, not their sum.
  for (let next = read(lastRead); ;) {
    const page = await next;
    const full = page.length === pageSize;
    if (page.length > 0) lastRead = page[page.length - 1]!.position;
    if (full) {
      next = read(lastRead);
      // Awaited on the next turn; a check that throws first must not leave it an unhandled rejection.
      next.catch(() => undefined);
    }
    if (page.length > 0) await options.onPage?.(page);
    if (options.checker) await options.checker.check(page);
    else
      for (const event of page) {
        if (options.from && !auditor.knows(event.streamId)) await seed(store, auditor, event);
        auditor.check(event);
      }
    checked += page.length;
    options.onProgress?.(checked);
    if (full) continue;
    if (await store.isAtOrBefore(head, lastRead))
      return options.checker ? options.checker.summary() : auditor.summary();
    heldBackSince ??= Date.now();
    const waited = Date.now() - heldBackSince;
    if (waited > heldBackMs) throw new LogHeldBackError(head, lastRead, waited);
    await new Promise((resolve) => setTimeout(resolve, 20));
    next = read(lastRead);
  }
}

/**
 * The revisions before `event` as context. An execution's request is in its Occurrence's admission, which
 * precedes every execution event: that stream is read up to the admission, so its later events are still checked.
 */
async function seed(store: EventStore, auditor: LogAuditor, event: RecordedEvent): Promise<void> {
  const executionId = (event.data as { executionId?: unknown } | null)?.executionId;
  const occurrenceId = typeof executionId === 'string' ? occurrenceIdOf(executionId) : null;
  const admissionStream = occurrenceId && occurrenceStream(occurrenceId);
  if (event.streamId.startsWith('execution-') && admissionStream && !auditor.knows(admissionStream)) {
    for (const e of await store.readStream(admissionStream, { raw: true })) {
      auditor.seed(e);
      if (requestCarriedBy(e)) break;
    }
  }
  if (event.revision === 0) return;
  for (const e of await store.readStream(event.streamId, { raw: true, maxCount: event.revision }))
    if (e.revision < event.revision) auditor.seed(e);
}
