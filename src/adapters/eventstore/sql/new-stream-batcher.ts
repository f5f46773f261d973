import { eventContent } from '../../../domain/shared/event-hash.js';
import type { NewEvent } from '../../../domain/ports/event-store.js';
import type { SqlExecutor } from '../../../projections/sql-client.js';
import { INSERT_NEW_STREAMS } from './sql-batch-append.js';
import { StatementBatcher } from './statement-batcher.js';
import { recordedAtText } from './event-row.js';

/** A first event of a new stream, as the store prepared it. */
interface NewStreamEvent extends NewEvent {
  id: string;
  schemaVersion: number;
  metadata: NonNullable<NewEvent['metadata']>;
}

/** Where the batch put an event; null when its stream already existed (or the batch could not say). */
interface NewStreamAppended {
  position: number;
  recordedAt: string;
  hash: string;
}

/**
 * Revision 0 of many streams in one INSERT. Each row is independent: a stream that already exists is
 * skipped (ON CONFLICT DO NOTHING) instead of failing the others. Only the canonical contents travel,
 * as one text: the columns are read from them, so the payload is sent once and no array literal has
 * to be escaped.
 */
const INSERT_NEW_STREAMS_SQL = `${INSERT_NEW_STREAMS}
ON CONFLICT (stream_id, revision) DO NOTHING
RETURNING event_id, position, ${recordedAtText('recorded_at')} AS recorded_at, hash`;

interface NewStreamAppend {
  streamId: string;
  event: NewStreamEvent;
}

/**
 * Group commit for the hottest append (an Occurrence's first event at "no stream", OC-3): appends
 * that arrive while earlier ones are being committed share one statement and its WAL flush. Every
 * caller still learns its own outcome; one whose stream existed gets null and takes the ordinary path.
 */
export function newStreamBatcher(sql: SqlExecutor): StatementBatcher<NewStreamAppend, NewStreamAppended | null> {
  return new StatementBatcher((batch) => insertNewStreams(sql, batch));
}

async function insertNewStreams(sql: SqlExecutor, batch: NewStreamAppend[]): Promise<Array<NewStreamAppended | null>> {
  try {
    const { rows } = await sql.query<{
      event_id: string;
      position: string | number;
      recorded_at: string;
      hash: string;
    }>({
      name: 'reveille_append_new_streams',
      text: INSERT_NEW_STREAMS_SQL,
      values: [batch.map((p) => eventContent({ ...p.event, streamId: p.streamId, revision: 0 })).join('\n')],
    });
    const byId = new Map(
      rows.map((r) => [r.event_id, { position: Number(r.position), recordedAt: r.recorded_at, hash: r.hash }]),
    );
    return batch.map((p) => byId.get(p.event.id) ?? null);
  } catch (error) {
    // One bad row (say a reused event id on another stream) must not fail its neighbours:
    // each gets its own answer on the ordinary path. An unreachable store fails them all.
    if ((error as { name?: string } | null)?.name === 'StoreUnavailable') throw error;
    return batch.map(() => null);
  }
}
