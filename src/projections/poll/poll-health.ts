import type { PollState } from '../../domain/poll/poll-events.js';
import { pollHealth } from '../../domain/poll/poll.js';
import { isoSql } from '../occurrences/cursor.js';
import type { SqlExecutor } from '../sql-client.js';
import { type TriggerHealthRow, worseHealth } from '../trigger-health/trigger-health.view.js';

/** The recovery action of a held poll (PO-4): the operator sets the cursor. */
export const pollCursorRecovery = (triggerId: string) => ({
  action: 'set_poll_cursor',
  method: 'PUT',
  href: `/v1/operator/triggers/${encodeURIComponent(triggerId)}/poll-cursor`,
});

/**
 * OP-1 for poll Triggers: `held` while a hold waits for the operator, `failing` after repeated failed polls, the
 * next poll the loop has planned as `nextFireAt`, and the items polls saw again in `counts.duplicate` (PO-2).
 */
export async function withPollHealth(sql: SqlExecutor, tenant: string, rows: TriggerHealthRow[]): Promise<void> {
  const polls = rows.filter((row) => row.type === 'poll');
  if (polls.length === 0) return;
  const { rows: found } = await sql.query<{
    trigger_id: string;
    state: PollState | null;
    next_poll_at: string | null;
    duplicates: string;
  }>(
    // A row planned under a revision at or below the last deletion is a deleted life's plan (left by a poll of
    // that life finishing after the deletion was folded): the loop plans the current life afresh, so none is shown.
    `SELECT p.trigger_id, p.state, ${isoSql('d.next_poll_at')} AS next_poll_at, p.duplicates
       FROM rm_polls p LEFT JOIN poll_due d ON d.tenant = p.tenant AND d.trigger_id = p.trigger_id
            AND (d.due_revision IS NULL OR d.due_revision > p.deleted_revision)
      WHERE p.tenant = $1 AND p.trigger_id = ANY($2::text[])`,
    [tenant, polls.map((row) => row.triggerId)],
  );
  const byTrigger = new Map(found.map((r) => [r.trigger_id, r]));
  for (const row of polls) {
    const poll = byTrigger.get(row.triggerId);
    if (poll) row.counts.duplicate += Number(poll.duplicates);
    if (!poll || !row.enabled || row.deleted) continue;
    row.nextFireAt = poll.next_poll_at;
    const health = poll.state ? pollHealth(poll.state) : 'ok';
    row.health = worseHealth(row.health, health);
    if (health === 'held') row.recovery = [pollCursorRecovery(row.triggerId), ...row.recovery];
  }
}
