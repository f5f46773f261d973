import { LogAuditor } from '../../domain/audit/log-audit.js';
import type { AuditSummary } from '../../domain/audit/audit-rules.js';
import { occurrenceIdOf } from '../../domain/execution/execution.js';
import type { EventStore, RecordedEvent } from '../../domain/ports/event-store.js';
import { occurrenceStream } from '../../domain/shared/ids.js';
import { requestCarriedBy } from '../../domain/occurrence/occurrence-events.js';

export interface VerifyLogOptions {
  /** Check the events after this position; the streams' earlier events are read as context. */
  from?: number;
  pageSize?: number;
  upcast?: (event: RecordedEvent) => RecordedEvent;
  onProgress?: (checked: number) => void;
}

/**
 * AU-2 over the whole log: read in the store's order page by page (never held in memory) as stored, and fed
 * to the domain's auditor. With `from`, a stream first met past it is read up to there first, so its chain and
 * its replay start where they truly are.
 */
export async function verifyLog(store: EventStore, options: VerifyLogOptions = {}): Promise<AuditSummary> {
  const auditor = new LogAuditor(options.upcast);
  const pageSize = options.pageSize ?? 2000;
  let checked = 0;
  const read = (after: number) => store.readAll({ after, maxCount: pageSize, raw: true });
  // The next page is read while this one is checked: the pass costs the larger of the two, not their sum.
  for (let next = read(options.from ?? 0); ;) {
    const page = await next;
    const full = page.length === pageSize;
    if (full) {
      next = read(page[page.length - 1]!.position);
      // Awaited on the next turn; a check that throws first must not leave it an unhandled rejection.
      next.catch(() => undefined);
    }
    for (const event of page) {
      if (options.from && !auditor.knows(event.streamId)) await seed(store, auditor, event);
      auditor.check(event);
    }
    checked += page.length;
    options.onProgress?.(checked);
    if (!full) return auditor.summary();
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
