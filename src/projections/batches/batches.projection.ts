import type { RecordedEvent } from '../../domain/ports/event-store.js';
import type { BatchClosed, BatchOpened } from '../../domain/batch/batch-events.js';
import type { SqlQuery } from '../sql-client.js';
import { statementProjection } from '../runner/statement-projection.js';
import { batchesMigrations } from './batches.migrations.js';

export const BATCHES_PROJECTION = 'batches';

export function evolveBatches(event: RecordedEvent): SqlQuery[] {
  if (event.type === 'BatchOpened') {
    const d = (event as RecordedEvent<BatchOpened['data']>).data;
    return [
      {
        text: `INSERT INTO rm_open_batches (batch_id, batch_stream, tenant, trigger_id, opened_at, deadline, last_position)
               VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (batch_id) DO NOTHING`,
        values: [d.batchId, event.streamId, d.tenant, d.triggerId, d.openedAt, d.deadline, event.position],
      },
    ];
  }
  if (event.type === 'BatchClosed') {
    const d = (event as RecordedEvent<BatchClosed['data']>).data;
    return [{ text: `DELETE FROM rm_open_batches WHERE batch_id = $1`, values: [d.batchId] }];
  }
  return [];
}

/** BA-1: the open batches; a batch closed by its timer or by its size leaves it. */
export const batchesProjection = statementProjection({
  name: BATCHES_PROJECTION,
  handles: ['BatchOpened', 'BatchClosed'],
  migrations: batchesMigrations,
  tables: ['rm_open_batches'],
  evolve: evolveBatches,
});
