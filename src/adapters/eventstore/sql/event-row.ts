import type { RecordedEvent } from '../../../domain/ports/event-store.js';

/**
 * The SQL pieces every statement on the events table is built from, so the hash chain, the recorded-at
 * text and the column lists are written once for all INSERT paths (single append, multi-event append,
 * batch append, new-stream group commit) and every read. Only the texts are shared: each statement
 * keeps its own name and plan.
 */

/** The columns an INSERT fills; position and transaction_id come from their defaults. */
export const INSERT_COLUMNS =
  'event_id, stream_id, revision, type, schema_version, data, metadata, recorded_at, hash, prev_hash';

/**
 * A timestamptz as the port's `recordedAt` (RFC 3339 UTC, milliseconds). The hash covers this text, so
 * the stored value is truncated to milliseconds first: reading it back gives the hashed text.
 */
export const recordedAtText = (timestamp: string): string =>
  `to_char(${timestamp} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** One statement, one clock reading: `ts` is stored in recorded_at and `rec` is its text the hash covers. */
export const STAMP = `SELECT date_trunc('milliseconds', now()) AS ts,
                 ${recordedAtText("date_trunc('milliseconds', now())")} AS rec`;

/**
 * Rule 3's hash (chainHash of domain/shared/event-hash.ts) as an SQL expression over three text
 * expressions: a null predecessor hashes as the empty string, and `prevHash` null builds a stream's
 * first link outright. verifyStreamChain recomputes it in TypeScript over what was stored.
 */
export const chainHashSql = (prevHash: string | null, recordedAt: string, content: string): string => {
  const prev = prevHash === null ? '' : `coalesce(${prevHash}, '') || `;
  return `encode(sha256(convert_to(${prev}E'\\n' || ${recordedAt} || E'\\n' || ${content}, 'UTF8')), 'hex')`;
};

/** What the database decides about an appended event (the rest is what the caller sent). */
export const APPENDED_COLUMNS = `position, revision, ${recordedAtText('recorded_at')} AS recorded_at, hash, prev_hash`;

/** The columns of a read event; the prefix `p` (say `e.`) names the events row when the query joins others. */
export const eventColumns = (p = ''): string =>
  `${p}position, ${p}event_id, ${p}stream_id, ${p}revision, ${p}type, ${p}schema_version, ${p}data, ${p}metadata,
   ${recordedAtText(`${p}recorded_at`)} AS recorded_at, ${p}hash, ${p}prev_hash`;

export interface AppendedRow {
  position: string | number;
  revision: number;
  recorded_at: string;
  hash: string;
  prev_hash: string | null;
}

/** A row selected with eventColumns(). */
export interface EventRow {
  position: string | number;
  event_id: string;
  stream_id: string;
  revision: number;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: Record<string, unknown>;
  recorded_at: string;
  hash: string;
  prev_hash: string | null;
}

export function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    streamId: row.stream_id,
    revision: row.revision,
    position: Number(row.position),
    type: row.type,
    schemaVersion: row.schema_version,
    data: row.data,
    metadata: row.metadata,
    recordedAt: row.recorded_at,
    hash: row.hash,
    prevHash: row.prev_hash,
  };
}
