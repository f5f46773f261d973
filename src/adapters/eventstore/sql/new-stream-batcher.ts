import { eventContent } from '../../../domain/shared/event-hash.js';
import type { NewEvent } from '../../../domain/ports/event-store.js';
import type { SqlExecutor } from '../../../projections/sql-client.js';
import { INSERT_NEW_STREAMS } from './sql-batch-append.js';
import { StatementBatcher } from './statement-batcher.js';
import { recordedAtText } from './event-row.js';

interface NewStreamEvent extends NewEvent {
  id: string;
  schemaVersion: number;
  metadata: NonNullable<NewEvent['metadata']>;
}

/** null: the stream already existed, or the batch could not say. */
interface NewStreamAppended {
  position: number;
  recordedAt: string;
  hash: string;
}

/** A stream that already exists is skipped instead of failing the others. */
const INSERT_NEW_STREAMS_SQL = `${INSERT_NEW_STREAMS}
ON CONFLICT (stream_id, revision) DO NOTHING
RETURNING event_id, position, ${recordedAtText('recorded_at')} AS recorded_at, hash`;

interface NewStreamAppend {
  streamId: string;
  event: NewStreamEvent;
}

/**
 * Group commit for the hottest append (an Occurrence's first event, OC-3): appends that arrive during a commit
 * share the next statement and its WAL flush; one whose stream existed gets null and takes the ordinary path.
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
