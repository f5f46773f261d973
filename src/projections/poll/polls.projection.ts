import type { RecordedEvent } from '../../domain/ports/event-store.js';
import { POLL_EVENT_TYPES, type PollEvent } from '../../domain/poll/poll-events.js';
import type { TriggerDeleted, TriggerRevised } from '../../domain/trigger/trigger.js';
import type { SqlQuery } from '../sql-client.js';
import { statementProjection } from '../runner/statement-projection.js';
import { pollsMigrations } from './polls.migrations.js';

export const POLLS_PROJECTION = 'polls';

function revised(event: RecordedEvent<TriggerRevised['data']>): SqlQuery[] {
  const d = event.data;
  const active = d.definition.type === 'poll' && d.definition.enabled;
  // Other Triggers get no row, unless they were poll Triggers before: the update turns those off.
  return [
    {
      text: active
        ? `INSERT INTO rm_polls AS p (tenant, trigger_id, trigger_revision, active, last_position) VALUES ($1, $2, $3, true, $4)
           ON CONFLICT (tenant, trigger_id) DO UPDATE SET trigger_revision = EXCLUDED.trigger_revision, active = true,
             last_position = EXCLUDED.last_position
           WHERE p.trigger_revision < EXCLUDED.trigger_revision`
        : `UPDATE rm_polls SET trigger_revision = $3, active = false, last_position = $4
            WHERE tenant = $1 AND trigger_id = $2 AND trigger_revision < $3`,
      values: [d.tenant, d.triggerId, d.revision, event.position],
    },
  ];
}

function deleted(event: RecordedEvent<TriggerDeleted['data']>): SqlQuery[] {
  const d = event.data;
  return [
    {
      text: `UPDATE rm_polls SET trigger_revision = $3, active = false, last_position = $4
              WHERE tenant = $1 AND trigger_id = $2 AND trigger_revision < $3`,
      values: [d.tenant, d.triggerId, d.revision, event.position],
    },
  ];
}

function polled(event: RecordedEvent<PollEvent['data']>): SqlQuery[] {
  const d = event.data;
  return [
    {
      text: `INSERT INTO rm_polls AS p (tenant, trigger_id, poll_seq, state, last_position) VALUES ($1, $2, $3, $4::jsonb, $5)
             ON CONFLICT (tenant, trigger_id) DO UPDATE SET poll_seq = EXCLUDED.poll_seq, state = EXCLUDED.state,
               last_position = GREATEST(p.last_position, EXCLUDED.last_position)
             WHERE p.poll_seq < EXCLUDED.poll_seq`,
      values: [d.tenant, d.triggerId, d.state.seq, JSON.stringify(d.state), event.position],
    },
  ];
}

export function evolvePolls(event: RecordedEvent): SqlQuery[] {
  if (event.type === 'TriggerRevised') return revised(event as RecordedEvent<TriggerRevised['data']>);
  if (event.type === 'TriggerDeleted') return deleted(event as RecordedEvent<TriggerDeleted['data']>);
  if ((POLL_EVENT_TYPES as readonly string[]).includes(event.type))
    return polled(event as RecordedEvent<PollEvent['data']>);
  return [];
}

/** The poll Triggers the loop polls, and each one's poll state for the operator (OP-1, PO-1). */
export const pollsProjection = statementProjection({
  name: POLLS_PROJECTION,
  handles: ['TriggerRevised', 'TriggerDeleted', ...POLL_EVENT_TYPES],
  migrations: pollsMigrations,
  // poll_due is the loop's, not the log's: a rebuild keeps it
  tables: ['rm_polls'],
  evolve: evolvePolls,
});
