import type { RecordedEvent } from '../../domain/ports/event-store.js';
import type { SqlQuery } from '../sql-client.js';
import type { TriggerDeleted, TriggerRevised } from '../../domain/trigger/trigger.js';
import type { Projection } from '../runner/projection.js';
import { statementProjection } from '../runner/statement-projection.js';
import { sourceBindingsMigrations } from './source-bindings.migrations.js';

export const SOURCE_BINDINGS_PROJECTION = 'source-bindings';

type Handled = TriggerRevised | TriggerDeleted;
const HANDLES: readonly Handled['type'][] = ['TriggerRevised', 'TriggerDeleted'];

/**
 * Every write is guarded by `revision < $n`, so a replayed event changes nothing. A Trigger that stops being
 * a webhook Trigger keeps its row with a null source, so it no longer matches.
 */
function revised(event: RecordedEvent<TriggerRevised['data']>): SqlQuery[] {
  const { tenant, triggerId, revision, definition } = event.data;
  if (definition.type !== 'webhook' || !definition.source) {
    return [
      {
        text: `UPDATE rm_source_bindings SET source_id = NULL, event_types = NULL, deleted = false, revision = $3
                WHERE tenant = $1 AND trigger_id = $2 AND revision < $3`,
        values: [tenant, triggerId, revision],
      },
    ];
  }
  return [
    {
      text: `INSERT INTO rm_source_bindings AS b (tenant, trigger_id, source_id, event_types, deleted, revision)
             VALUES ($1, $2, $3, $4::jsonb, false, $5)
             ON CONFLICT (tenant, trigger_id) DO UPDATE SET source_id = EXCLUDED.source_id, event_types = EXCLUDED.event_types, deleted = false, revision = EXCLUDED.revision
             WHERE b.revision < EXCLUDED.revision`,
      values: [
        tenant,
        triggerId,
        definition.source.sourceId,
        definition.source.eventTypes ? JSON.stringify(definition.source.eventTypes) : null,
        revision,
      ],
    },
  ];
}

function deleted(event: RecordedEvent<TriggerDeleted['data']>): SqlQuery[] {
  const { tenant, triggerId, revision } = event.data;
  return [
    {
      text: `UPDATE rm_source_bindings SET deleted = true, revision = $3 WHERE tenant = $1 AND trigger_id = $2 AND revision < $3`,
      values: [tenant, triggerId, revision],
    },
  ];
}

export function evolveSourceBindings(event: RecordedEvent): SqlQuery[] {
  switch (event.type as Handled['type']) {
    case 'TriggerRevised':
      return revised(event as RecordedEvent<TriggerRevised['data']>);
    case 'TriggerDeleted':
      return deleted(event as RecordedEvent<TriggerDeleted['data']>);
    default:
      return [];
  }
}

/** The ingress's server-side map from (tenant, source, event type) to webhook Triggers (WH-6). */
export const sourceBindingsProjection: Projection = statementProjection({
  name: SOURCE_BINDINGS_PROJECTION,
  handles: HANDLES,
  migrations: sourceBindingsMigrations,
  tables: ['rm_source_bindings'],
  evolve: evolveSourceBindings,
});
