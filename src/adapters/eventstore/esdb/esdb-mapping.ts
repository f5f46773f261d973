/** No I/O here, so every rule the adapter relies on (revisions, the metadata envelope, errors) is unit-tested. */
import type { EventMetadata, ExpectedRevision, RecordedEvent } from '../../../domain/ports/event-store.js';

export type EsdbExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | bigint;
export type EsdbCurrentRevision = 'no_stream' | bigint;

export const ENVELOPE_KEY = '$reveille';

export interface Envelope {
  /** Host clock at append: ESDB's `created` is assigned later, server side. */
  recordedAt: string;
  hash: string;
  prevHash: string | null;
  schemaVersion: number;
}

export function toEsdbExpectedRevision(expected: ExpectedRevision): EsdbExpectedRevision {
  if (typeof expected !== 'number') return expected;
  if (expected === -1) return 'no_stream';
  if (!Number.isSafeInteger(expected) || expected < -1) throw new RangeError(`invalid expected revision ${expected}`);
  return BigInt(expected);
}

/** A concrete revision (-1: the stream must not exist); idempotency by event id holds only for these. */
export function concreteRevision(at: number): 'no_stream' | bigint {
  return toEsdbExpectedRevision(at) as 'no_stream' | bigint;
}

export function fromEsdbRevision(current: EsdbCurrentRevision | undefined | null): number {
  if (current === undefined || current === null || current === 'no_stream') return -1;
  return Number(current);
}

export function wrapMetadata(metadata: EventMetadata, envelope: Envelope): Record<string, unknown> {
  if (Object.prototype.hasOwnProperty.call(metadata, ENVELOPE_KEY))
    throw new Error(`event metadata must not use the reserved key ${ENVELOPE_KEY}`);
  return { ...metadata, [ENVELOPE_KEY]: envelope };
}

/** Events written by other clients have no envelope. */
export function unwrapMetadata(stored: unknown): { metadata: EventMetadata; envelope: Envelope | null } {
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored) || stored instanceof Uint8Array)
    return { metadata: {}, envelope: null };
  const { [ENVELOPE_KEY]: raw, ...metadata } = stored as Record<string, unknown>;
  return { metadata, envelope: isEnvelope(raw) ? raw : null };
}

function isEnvelope(value: unknown): value is Envelope {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.recordedAt === 'string' &&
    typeof v.hash === 'string' &&
    (v.prevHash === null || typeof v.prevHash === 'string') &&
    Number.isInteger(v.schemaVersion)
  );
}

export interface EsdbRecord {
  streamId: string;
  id: string;
  revision: bigint;
  type: string;
  data: unknown;
  metadata?: unknown;
  created: Date;
  position?: { commit: bigint; prepare: bigint };
}

/**
 * For gRPC appends the $all commit position equals the prepare position, so it is unique per event. Stream reads
 * carry it from server 22.6 on; older servers cannot serve this port.
 */
export function toRecordedEvent(record: EsdbRecord, commitPosition?: bigint): RecordedEvent {
  const commit = commitPosition ?? record.position?.commit;
  if (commit === undefined)
    throw new Error(
      `EventStoreDB returned ${record.streamId}@${record.revision} without a $all position (server 22.6 or later required)`,
    );
  const { metadata, envelope } = unwrapMetadata(record.metadata);
  return {
    id: record.id,
    streamId: record.streamId,
    revision: Number(record.revision),
    position: Number(commit),
    type: record.type,
    schemaVersion: envelope?.schemaVersion ?? 1,
    data: record.data,
    metadata,
    // A foreign event (no envelope) gets the server's timestamp and an empty hash: the auditor flags it.
    recordedAt: envelope?.recordedAt ?? record.created.toISOString(),
    hash: envelope?.hash ?? '',
    prevHash: envelope?.prevHash ?? null,
  };
}

export function isSystemEvent(streamId: string, type: string): boolean {
  return streamId.startsWith('$') || type.startsWith('$');
}

export function positionFrom(after: number): { commit: bigint; prepare: bigint } {
  if (!Number.isSafeInteger(after) || after < 0) throw new RangeError(`invalid position ${after}`);
  return { commit: BigInt(after), prepare: BigInt(after) };
}

// Errors are duck-typed: the client's classes may come from another realm (jest's VM), failing instanceof,
// and its append path rejects with raw gRPC errors (`code` 14) rather than its own UnavailableError.
const UNAVAILABLE_TYPES = new Set(['unavailable', 'deadline-exceeded', 'timeout', 'not-leader', 'cancelled']);
const GRPC_UNAVAILABLE = 14;
const GRPC_DEADLINE_EXCEEDED = 4;

export function isUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { type, code, message } = error as { type?: unknown; code?: unknown; message?: unknown };
  if (typeof type === 'string' && UNAVAILABLE_TYPES.has(type)) return true;
  if (code === GRPC_UNAVAILABLE || code === GRPC_DEADLINE_EXCEEDED) return true;
  if (typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH)$/.test(code))
    return true;
  return (
    typeof message === 'string' &&
    /UNAVAILABLE|ECONNREFUSED|No connection established|Failed to discover|client is closed|disposed/i.test(message)
  );
}

export function wrongExpectedActual(error: unknown): number | null {
  if (typeof error !== 'object' || error === null) return null;
  const e = error as { type?: unknown; actualVersion?: unknown };
  if (e.type !== 'wrong-expected-version') return null;
  return fromEsdbRevision(e.actualVersion as EsdbCurrentRevision | undefined);
}

export function isStreamNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { type?: unknown }).type === 'stream-not-found';
}
