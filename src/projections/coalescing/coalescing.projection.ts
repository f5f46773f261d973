import type { RecordedEvent } from '../../domain/ports/event-store.js';
import type { CoalesceGroupClosed, CoalesceGroupOpened } from '../../domain/coalescing/coalesce-group.js';
import type { Migration } from '../migration.js';
import type { Projection } from '../runner/projection.js';
import { statementProjection } from '../runner/statement-projection.js';
import type { SqlQuery } from '../sql-client.js';

export const COALESCING_PROJECTION = 'coalescing';

/** DD-5: the open coalescing groups and when each window closes: the timers' due index. */
const migrations: Migration[] = [
  {
    id: '0380_rm_coalesce_open',
    sql: `
      CREATE TABLE IF NOT EXISTS rm_coalesce_open (
        stream_id     text PRIMARY KEY,
        tenant        text NOT NULL,
        group_id      text NOT NULL,
        -- the first member's Occurrence stream: admitting it again closes the group once it is due
        member_stream text NOT NULL,
        closes_at     timestamptz NOT NULL
      );
      CREATE INDEX IF NOT EXISTS rm_coalesce_open_due ON rm_coalesce_open (closes_at)`,
  },
];

/**
 * One row per coalesce stream with an open group; a group opened replaces a closed one's row, a close removes
 * its own group's row only. Every statement sets what its event says, so a replayed batch changes nothing.
 */
export function evolveCoalescing(event: RecordedEvent): SqlQuery[] {
  if (event.type === 'CoalesceGroupOpened') {
    const d = (event as RecordedEvent<CoalesceGroupOpened['data']>).data;
    return [
      {
        text: `INSERT INTO rm_coalesce_open (stream_id, tenant, group_id, member_stream, closes_at)
               VALUES ($1, $2, $3, $4, $5::timestamptz)
               ON CONFLICT (stream_id) DO UPDATE SET tenant = EXCLUDED.tenant, group_id = EXCLUDED.group_id,
                 member_stream = EXCLUDED.member_stream, closes_at = EXCLUDED.closes_at`,
        values: [event.streamId, d.tenant, d.groupId, d.member.streamId, d.closesAt],
      },
    ];
  }
  if (event.type === 'CoalesceGroupClosed') {
    const d = (event as RecordedEvent<CoalesceGroupClosed['data']>).data;
    return [
      {
        text: `DELETE FROM rm_coalesce_open WHERE stream_id = $1 AND group_id = $2`,
        values: [event.streamId, d.groupId],
      },
    ];
  }
  return [];
}

export const coalescingProjection: Projection = statementProjection({
  name: COALESCING_PROJECTION,
  handles: ['CoalesceGroupOpened', 'CoalesceGroupClosed'],
  migrations,
  tables: ['rm_coalesce_open'],
  evolve: evolveCoalescing,
});
