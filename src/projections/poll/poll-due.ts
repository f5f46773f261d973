import type { SqlExecutor } from '../sql-client.js';
import { isoSql } from '../occurrences/cursor.js';

export interface PollKey {
  tenant: string;
  triggerId: string;
}

/** A poll_due row planned under an older revision of its Trigger than the read model's (`d`, `p`). */
const REVISED_SINCE_PLANNED = 'd.due_revision < p.trigger_revision';

/** A Trigger the loop looks at now; `replan`: its due time was set under an older revision (see replanPoll). */
export interface DuePoll extends PollKey {
  replan: boolean;
}

/**
 * Active poll Triggers due by the database clock and owned by no live lease, never polled ones first; and those
 * revised since their due time was set, to plan them again under the new revision.
 */
export async function duePolls(sql: SqlExecutor, limit: number): Promise<DuePoll[]> {
  const { rows } = await sql.query<{ tenant: string; trigger_id: string; replan: boolean | null }>({
    name: 'reveille_due_polls',
    text: `SELECT p.tenant, p.trigger_id, ${REVISED_SINCE_PLANNED} AS replan
             FROM rm_polls p LEFT JOIN poll_due d ON d.tenant = p.tenant AND d.trigger_id = p.trigger_id
            WHERE p.active AND (d.tenant IS NULL OR ((d.next_poll_at <= statement_timestamp() OR ${REVISED_SINCE_PLANNED})
                  AND (d.lease_until IS NULL OR d.lease_until <= statement_timestamp())))
            ORDER BY d.next_poll_at NULLS FIRST, p.tenant, p.trigger_id LIMIT $1`,
    values: [limit],
  });
  return rows.map((r) => ({ tenant: r.tenant, triggerId: r.trigger_id, replan: r.replan === true }));
}

/**
 * The poll block says "every everySeconds" of the current revision: a revision that shortens the interval makes
 * the next poll due that long after the last claim, not when the old interval would have run out (an hourly poll
 * revised to every 2 s polls within 2 s, not an hour later). `delaySeconds` is the new interval backed off per
 * failure in a row, so a revision that leaves the interval alone (a toggle, another block) changes nothing, and a
 * longer interval never delays a poll already due; 0 for a new binding (another url), due at once. A row planned before `createdRevision` belongs to a deleted life
 * of the Trigger (its backoff, its last claim): the Trigger created again is due at once, as a new one is.
 */
export async function replanPoll(
  sql: SqlExecutor,
  key: PollKey,
  trigger: { revision: number; createdRevision: number },
  delaySeconds: number,
): Promise<void> {
  await sql.query({
    name: 'reveille_replan_poll',
    text: `UPDATE poll_due SET due_revision = $3,
              next_poll_at = CASE WHEN due_revision < $5 THEN LEAST(next_poll_at, statement_timestamp())
                                  ELSE LEAST(next_poll_at, COALESCE(claimed_at, next_poll_at) + $4 * interval '1 second') END
            WHERE tenant = $1 AND trigger_id = $2 AND due_revision < $3
              AND (lease_until IS NULL OR lease_until <= statement_timestamp())`,
    values: [key.tenant, key.triggerId, trigger.revision, delaySeconds, trigger.createdRevision],
  });
}

/** A poll recorded and not finished yet: the next claim of the same lane finishes it in its own statement. */
export interface UnfinishedPoll {
  key: PollKey;
  token: string;
  delayMs: number;
  /** The Trigger revision delayMs was planned under (absent: keep the row's). */
  revision?: number | null;
}

/**
 * Compare-and-set on the database clock: of any number of pollers only one gets the row while it is due and
 * unleased (a racing insert waits on the key, then finds the lease taken). Returns when it was claimed.
 * `finishing` (another Trigger's poll, see finishPoll) is finished by the same statement, claimed or not.
 */
export async function claimPoll(
  sql: SqlExecutor,
  key: PollKey,
  leaseMs: number,
  token: string,
  finishing?: UnfinishedPoll | null,
): Promise<{ claimedAt: string } | null> {
  const claim = `INSERT INTO poll_due AS d (tenant, trigger_id, next_poll_at, lease_until, lease_token, claimed_at)
           VALUES ($1, $2, statement_timestamp(), statement_timestamp() + $3 * interval '1 millisecond', $4, statement_timestamp())
           ON CONFLICT (tenant, trigger_id) DO UPDATE SET lease_until = EXCLUDED.lease_until, lease_token = EXCLUDED.lease_token,
             claimed_at = EXCLUDED.claimed_at
           WHERE d.next_poll_at <= statement_timestamp() AND (d.lease_until IS NULL OR d.lease_until <= statement_timestamp())
           RETURNING ${isoSql('claimed_at')} AS claimed_at`;
  const values = [key.tenant, key.triggerId, leaseMs, token];
  const { rows } = await sql.query<{ claimed_at: string }>(
    finishing
      ? {
          name: 'reveille_finish_and_claim_poll',
          text: `WITH finished AS (${finishSql(5)}) ${claim}`,
          values: [...values, ...finishValues(finishing)],
        }
      : { name: 'reveille_claim_poll', text: claim, values },
  );
  return rows[0] ? { claimedAt: rows[0].claimed_at } : null;
}

/** Its parameters from `$first` on: tenant, Trigger, lease token, delay in ms, Trigger revision. */
const finishSql = (first: number): string => {
  const [tenant, trigger, token, delay, revision] = [0, 1, 2, 3, 4].map((i) => `$${first + i}`);
  return `UPDATE poll_due SET next_poll_at = claimed_at + ${delay} * interval '1 millisecond', lease_until = NULL, lease_token = NULL,
              due_revision = COALESCE(${revision}::integer, due_revision)
            WHERE tenant = ${tenant} AND trigger_id = ${trigger} AND lease_token = ${token}`;
};

const finishValues = ({ key, token, delayMs, revision }: UnfinishedPoll) => [
  key.tenant,
  key.triggerId,
  token,
  delayMs,
  revision ?? null,
];

/**
 * The next poll is due `delayMs` after this one was claimed: a poller that was down polls once when it is back,
 * never once per missed interval. Only the lease's holder can finish it.
 */
export async function finishPoll(sql: SqlExecutor, poll: UnfinishedPoll): Promise<boolean> {
  const { rowCount } = await sql.query({
    name: 'reveille_finish_poll',
    text: finishSql(1),
    values: finishValues(poll),
  });
  return rowCount > 0;
}

/** Milliseconds until the next active poll Trigger is due or its lease runs out (0: due now; null: none). */
export async function msUntilNextPoll(sql: SqlExecutor): Promise<number | null> {
  const { rows } = await sql.query<{ ms: string | number | null }>({
    name: 'reveille_next_poll_in',
    // a revised row is looked at now, once no poller holds its lease (a held lease would make the loop spin)
    text: `SELECT EXTRACT(EPOCH FROM min(CASE WHEN d.tenant IS NULL THEN statement_timestamp()
                                             WHEN ${REVISED_SINCE_PLANNED} THEN GREATEST(statement_timestamp(), COALESCE(d.lease_until, statement_timestamp()))
                                             ELSE GREATEST(d.next_poll_at, COALESCE(d.lease_until, d.next_poll_at)) END)
                                     - statement_timestamp()) * 1000 AS ms
             FROM rm_polls p LEFT JOIN poll_due d ON d.tenant = p.tenant AND d.trigger_id = p.trigger_id WHERE p.active`,
    values: [],
  });
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? null : Math.max(0, Number(ms));
}

/**
 * After a bearer secret was set: a Trigger whose polls are failing (perhaps for want of it) is polled at once
 * instead of after its backoff; one poll, never a burst. Others keep their interval.
 */
export async function pollSoonIfFailing(sql: SqlExecutor, key: PollKey): Promise<void> {
  await sql.query(
    `UPDATE poll_due d SET next_poll_at = statement_timestamp() FROM rm_polls p
      WHERE d.tenant = $1 AND d.trigger_id = $2 AND p.tenant = d.tenant AND p.trigger_id = d.trigger_id
        AND COALESCE((p.state->>'consecutiveFailures')::int, 0) > 0 AND d.next_poll_at > statement_timestamp()`,
    [key.tenant, key.triggerId],
  );
}
