import type { RecordedEvent } from '../../../domain/ports/event-store.js';

/**
 * The hash chain, recorded-at text and column lists, written once for every INSERT path and read. Only the texts
 * are shared: each statement keeps its own name and plan.
 */

/** The columns an INSERT fills; position and transaction_id come from their defaults. */
export const INSERT_COLUMNS =
  'event_id, stream_id, revision, type, schema_version, data, metadata, recorded_at, hash, prev_hash';

/** The hash covers this text, so the stored value is truncated to milliseconds first: reading it back gives it. */
export const recordedAtText = (timestamp: string): string =>
  `to_char(${timestamp} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** One statement, one clock reading: `ts` is stored in recorded_at and `rec` is its text the hash covers. */
export const STAMP = `SELECT date_trunc('milliseconds', now()) AS ts,
                 ${recordedAtText("date_trunc('milliseconds', now())")} AS rec`;

/** Rule 3's hash, the same as chainHash in domain/shared/event-hash.ts: keep both in step. */
export const chainHashSql = (prevHash: string | null, recordedAt: string, content: string): string => {
  const prev = prevHash === null ? '' : `coalesce(${prevHash}, '') || `;
  return `encode(sha256(convert_to(${prev}E'\\n' || ${recordedAt} || E'\\n' || ${content}, 'UTF8')), 'hex')`;
};

export const APPENDED_COLUMNS = `position, revision, ${recordedAtText('recorded_at')} AS recorded_at, hash, prev_hash`;

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
