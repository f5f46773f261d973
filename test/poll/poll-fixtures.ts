import { IMPLEMENTED_CAPABILITIES } from '../../src/adapters/config/capabilities.js';
import { PollLoop } from '../../src/adapters/poll/poll-loop.js';
import { HttpJsonConnector } from '../../src/adapters/poll/http-json-connector.js';
import { currentMission } from '../../src/commands/shared/lookups.js';
import { handleCommand } from '../../src/commands/shared/write-kernel.js';
import type { EventStore, RecordedEvent } from '../../src/domain/ports/event-store.js';
import type { PollEvent } from '../../src/domain/poll/poll-events.js';
import { pollStream, triggerStream } from '../../src/domain/shared/ids.js';
import { triggerDecider } from '../../src/domain/trigger/trigger.js';
import type { SqlClient, SqlExecutor } from '../../src/projections/sql-client.js';

/** What a Trigger's `poll` block holds in these tests: fast intervals, a short timeout. */
export const pollBlock = (url: string, extra: Record<string, unknown> = {}) => ({
  connector: 'http-json@1',
  url,
  everySeconds: 1,
  itemsPointer: '/items',
  idPointer: '/id',
  cursorParam: 'cursor',
  nextCursorPointer: '/next',
  onInvalidItem: 'quarantine',
  timeoutSeconds: 1,
  ...extra,
});

/** Revises a poll Trigger through the real decider, as PUT /v1/triggers would (the suites use both). */
export async function revisePoll(
  store: EventStore,
  spec: { tenant: string; triggerId: string; missionId: string; poll: Record<string, unknown>; enabled?: boolean },
): Promise<number> {
  const { tenant, triggerId, missionId, poll, enabled = true } = spec;
  const handled = await handleCommand(
    store,
    triggerStream(tenant, triggerId),
    triggerDecider,
    {
      type: 'ReviseTrigger',
      tenant,
      triggerId,
      definition: { missionId, type: 'poll', enabled, poll },
      reason: 'test',
      actor: 'svc-test',
      at: (await store.now()).toISOString(),
      mission: await currentMission(store, tenant, missionId),
      capabilities: IMPLEMENTED_CAPABILITIES,
      pins: { tzdataVersion: process.versions.tz ?? 'unknown' },
    },
    { tenant, actor: 'svc-test', correlationId: `c-${triggerId}` },
  );
  return handled.position;
}

export const pollLoop = (
  store: EventStore,
  sql: SqlClient,
  extra: Partial<ConstructorParameters<typeof PollLoop>[0]> = {},
) => new PollLoop({ store, sql, connector: new HttpJsonConnector(), maxIdleMs: 100, ...extra });

/** Makes the Trigger due now, whatever its interval or backoff: a test's stand-in for waiting. */
export async function makeDue(sql: SqlExecutor, tenant: string, triggerId: string): Promise<void> {
  await sql.query(
    `UPDATE poll_due SET next_poll_at = statement_timestamp() - interval '1 millisecond' WHERE tenant = $1 AND trigger_id = $2`,
    [tenant, triggerId],
  );
}

export async function pollEvents(
  store: EventStore,
  tenant: string,
  triggerId: string,
): Promise<RecordedEvent<PollEvent['data']>[]> {
  return (await store.readStream(pollStream(tenant, triggerId))) as RecordedEvent<PollEvent['data']>[];
}

/** Every Occurrence the log holds for the Trigger, in log order. */
export async function occurrencesOf(
  sql: SqlExecutor,
  tenant: string,
  triggerId: string,
): Promise<Array<{ externalId: string; kind: string; input: unknown }>> {
  const { rows } = await sql.query<{ data: { externalId: string; kind: string; input: unknown } }>(
    `SELECT data FROM events WHERE type = 'OccurrenceObserved' AND data->>'tenant' = $1 AND data->>'triggerId' = $2 ORDER BY position`,
    [tenant, triggerId],
  );
  return rows.map((r) => ({ externalId: r.data.externalId, kind: r.data.kind, input: r.data.input }));
}
