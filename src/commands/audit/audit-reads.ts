import type { EventStore, RecordedEvent } from '../../domain/ports/event-store.js';

/** AU-1: an event as stored (never upcast), so an auditor can recompute its hash. */
export interface AuditEvent {
  position: number;
  /** Not in api.md's list, but the hash covers it: without it nobody could recompute one. */
  id: string;
  streamId: string;
  revision: number;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: RecordedEvent['metadata'];
  recordedAt: string;
  hash: string;
  prevHash: string | null;
}

export interface AuditPage {
  events: AuditEvent[];
  /** The `after` of the following page; null once the readable end of the log was reached. */
  next: number | null;
}

export interface AuditStreamPage {
  streamId: string;
  events: AuditEvent[];
  /** The `fromRevision` of the following page, null at the stream's end. */
  nextRevision: number | null;
}

/** Rows read from the store per round trip, and at most per request, whatever the tenant owns of them. */
const SCAN_PAGE = 500;
const MAX_SCANNED = 5000;

/** Every event carries its tenant in its metadata (metadataOf); an event without one belongs to nobody. */
const ownedBy = (event: RecordedEvent, tenant: string): boolean => event.metadata?.tenant === tenant;

const view = (e: RecordedEvent): AuditEvent => ({
  position: e.position,
  id: e.id,
  streamId: e.streamId,
  revision: e.revision,
  type: e.type,
  schemaVersion: e.schemaVersion,
  data: e.data,
  metadata: e.metadata,
  recordedAt: e.recordedAt,
  hash: e.hash,
  prevHash: e.prevHash,
});

/**
 * The tenant's events in global log order (readAll's gap-free order), page by page from the store. Another
 * tenant's events are skipped, never shown; a page scans a bounded number of rows, so it may hold fewer than
 * `limit` events and still name a `next`.
 */
export async function auditFeed(store: EventStore, tenant: string, after: number, limit: number): Promise<AuditPage> {
  const events: AuditEvent[] = [];
  let cursor = after;
  /** Where a full page ends: the scan goes on only to see whether another of the tenant's events follows. */
  let fullAt: number | null = null;
  for (let scanned = 0; scanned < MAX_SCANNED;) {
    const page = await store.readAll({ after: cursor, maxCount: SCAN_PAGE, raw: true });
    for (const event of page) {
      cursor = event.position;
      scanned += 1;
      if (!ownedBy(event, tenant)) continue;
      if (fullAt !== null) return { events, next: fullAt };
      events.push(view(event));
      if (events.length === limit) fullAt = cursor;
    }
    // api.md: `next` is null at the end, also when the last page is exactly `limit` long.
    if (page.length < SCAN_PAGE) return { events, next: null };
  }
  return { events, next: fullAt ?? cursor };
}

/** A stream of another tenant, or none at all, is null: the caller answers the same 404 for both (SEC-2). */
export async function auditStream(
  store: EventStore,
  tenant: string,
  streamId: string,
  fromRevision: number,
  limit: number,
): Promise<AuditStreamPage | null> {
  // The stream's tenant is its first event's: later revisions may be asked for, or may not exist yet.
  const [first] = await store.readStream(streamId, { maxCount: 1, raw: true });
  if (!first || !ownedBy(first, tenant)) return null;
  const read = await store.readStream(streamId, { fromRevision, maxCount: limit + 1, raw: true });
  const page = read.slice(0, limit);
  return {
    streamId,
    events: page.filter((event) => ownedBy(event, tenant)).map(view),
    nextRevision: read.length > limit ? read[limit]!.revision : null,
  };
}

/** A position readAll can resume after: 0, or one the store holds (an unknown one would restart the log). */
export async function isResumable(store: EventStore, position: number): Promise<boolean> {
  return position === 0 || (await store.isAtOrBefore(position, position));
}
