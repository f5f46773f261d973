import type { RecordedEvent } from '../../domain/ports/event-store.js';
import { lifeOf, POLL_EVENT_TYPES, type PollCompleted, type PollEvent } from '../../domain/poll/poll-events.js';
import type { TriggerDeleted, TriggerRevised } from '../../domain/trigger/trigger.js';
import type { SqlQuery } from '../sql-client.js';
import { statementProjection } from '../runner/statement-projection.js';
import { pollsMigrations } from './polls.migrations.js';

export const POLLS_PROJECTION = 'polls';

function revised(event: RecordedEvent<TriggerRevised['data']>): SqlQuery[] {
  const d = event.data;
  const active = d.definition.type === 'poll' && d.definition.enabled;
  // Other Triggers get no row here, unless they had one before (a poll Trigger, a deletion): the update turns it off.
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

/**
 * The life the poll state belonged to ends: the state and the loop's `poll_due` row of that life go, and a poll event of that life folded later (a poll
 * recorded as the Trigger was deleted) never comes back as the state of the next life. Any Trigger's deletion
 * leaves a row (inactive, no state), since a poll event of its life may still follow it in the log.
 */
function deleted(event: RecordedEvent<TriggerDeleted['data']>): SqlQuery[] {
  const d = event.data;
  return [
    // The loop's schedule of the ended life goes too (its due time, backoff, claim): nothing polls a deleted Trigger,
    // and a life created again is due at once, as a new poll Trigger is. A row planned under a later revision (a
    // rebuild folding an old deletion; a later life already polled) belongs to that life and stays.
    {
      text: `DELETE FROM poll_due WHERE tenant = $1 AND trigger_id = $2 AND (due_revision IS NULL OR due_revision < $3)`,
      values: [d.tenant, d.triggerId, d.revision],
    },
    {
      text: `INSERT INTO rm_polls AS p (tenant, trigger_id, trigger_revision, active, deleted_revision, last_position)
             VALUES ($1, $2, $3, false, $3, $4)
             ON CONFLICT (tenant, trigger_id) DO UPDATE SET trigger_revision = EXCLUDED.trigger_revision, active = false,
               deleted_revision = EXCLUDED.deleted_revision, state = NULL,
               last_position = EXCLUDED.last_position
             WHERE p.trigger_revision < EXCLUDED.trigger_revision`,
      values: [d.tenant, d.triggerId, d.revision, event.position],
    },
  ];
}

/**
 * The newest state of the Trigger's current life (`lifeOf`: a state without one is the first life's), and its
 * `duplicate` dispositions counted (OP-1) by the same `poll_seq` guard, so a replayed event counts nothing twice.
 */
function polled(event: RecordedEvent<PollEvent['data']>): SqlQuery[] {
  const d = event.data;
  const duplicates = event.type === 'PollCompleted' ? duplicatesIn(event.data as PollCompleted['data']) : 0;
  return [
    {
      text: `INSERT INTO rm_polls AS p (tenant, trigger_id, poll_seq, state, duplicates, last_position) VALUES ($1, $2, $3, $4::jsonb, $7, $5)
             ON CONFLICT (tenant, trigger_id) DO UPDATE SET poll_seq = EXCLUDED.poll_seq, state = EXCLUDED.state,
               duplicates = p.duplicates + EXCLUDED.duplicates,
               last_position = GREATEST(p.last_position, EXCLUDED.last_position)
             WHERE p.poll_seq < EXCLUDED.poll_seq AND $6::integer > p.deleted_revision`,
      values: [
        d.tenant,
        d.triggerId,
        d.state.seq,
        JSON.stringify(d.state),
        event.position,
        lifeOf(d.state),
        duplicates,
      ],
    },
  ];
}

const duplicatesIn = (data: PollCompleted['data']): number =>
  data.items.filter((item) => item.disposition === 'duplicate').length;

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
