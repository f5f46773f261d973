import { randomUUID } from 'node:crypto';
import { isPollTrigger, loadPollInputs, type RecordedPoll, recordPoll } from '../../commands/poll/record-poll.js';
import type { EventStore } from '../../domain/ports/event-store.js';
import type { PollConnector, PollFetch } from '../../domain/ports/poll-connector.js';
import type { PollSecrets } from '../../domain/ports/poll-secrets.js';
import { pollStateFor } from '../../domain/poll/poll-events.js';
import { cursorFor, nextPollDelaySeconds, replanDelaySeconds } from '../../domain/poll/poll.js';
import {
  claimPoll,
  duePolls,
  finishPoll,
  msUntilNextPoll,
  type DuePoll,
  type PollKey,
  replanPoll,
  type UnfinishedPoll,
} from '../../projections/poll/poll-due.js';
import type { SqlClient } from '../../projections/sql-client.js';
import type { BatchAppender } from '../../commands/shared/write-kernel.js';
import { orderedAppends } from './ordered-appends.js';
import { idleUntil, TimedLoop } from '../runner/timed-loop.js';
import { credentialsFor } from './poll-credentials.js';

export const POLL_LOOP = 'poller:poll';

export interface PollLoopOptions {
  store: EventStore;
  sql: SqlClient;
  connector: PollConnector;
  /** Where `poll.auth` bearer secrets are read; without it such a Trigger's polls fail `secret_missing`. */
  secrets?: PollSecrets;
  /** The longest sleep between two looks at the due table: new poll Triggers are seen by then. */
  maxIdleMs?: number;
  /** Triggers polled side by side in one pass. */
  concurrency?: number;
  /** A lease outlives the fetch's timeout by this much, for the commit after it. */
  leaseMarginMs?: number;
  onPolled?: (key: PollKey, recorded: RecordedPoll) => void;
  onError?: (error: unknown) => void;
}

const DUE_PER_ROUND = 100;
const DEFAULT_MAX_IDLE_MS = 1_000;
const DEFAULT_CONCURRENCY = 4;
const DEFAULT_LEASE_MARGIN_MS = 5_000;
/** A row still active in the read model for a Trigger its stream no longer polls: looked at again this much later. */
const NOT_POLLED_RETRY_MS = 1_000;

/**
 * PO-1..PO-4 by the database clock (SC-6). A Trigger's poll is owned through the store, never memory: the poller
 * claims its `poll_due` row (compare-and-set on due and unleased), fetches, records the outcome at the poll
 * stream's revision, and sets the next due time from the claim. A poller that dies mid-poll leaves a lease that
 * runs out, and the next one fetches the same cursor again: the Occurrences of that page were never committed,
 * or were committed with the cursor that moved past them (PO-3). Any number of processes may run one.
 */
export class PollLoop extends TimedLoop {
  readonly name = POLL_LOOP;
  private readonly append: BatchAppender;

  constructor(private readonly options: PollLoopOptions) {
    super(options.onError);
    this.append = orderedAppends(options.store);
  }

  /** One pass over the Triggers due now; returns how many it polled. */
  async runOnce(): Promise<number> {
    const { sql } = this.options;
    const due = await duePolls(sql, DUE_PER_ROUND);
    let polled = 0;
    let failure: { error: unknown } | null = null;
    // Lanes side by side; each finishes its last poll with its next claim (one statement for both).
    const lane = async () => {
      let unfinished: UnfinishedPoll | null = null;
      for (let next = due.shift(); next !== undefined; next = due.shift()) {
        try {
          const outcome = await this.poll(next, unfinished);
          unfinished = outcome.unfinished;
          if (outcome.recorded) polled++;
        } catch (error) {
          // One Trigger whose poll cannot be recorded must not hold back the others; its lease runs out.
          unfinished = null;
          failure = { error };
        }
      }
      if (unfinished)
        await finishPoll(sql, unfinished).catch((error: unknown) => {
          failure = { error };
        });
    };
    await Promise.all(Array.from({ length: this.options.concurrency ?? DEFAULT_CONCURRENCY }, lane));
    if (failure) throw (failure as { error: unknown }).error;
    return polled;
  }

  /** Claims, fetches, records and finishes one Trigger's poll; null when another poller owns it or it is not due. */
  async pollTrigger(key: PollKey): Promise<RecordedPoll | null> {
    const { recorded, unfinished } = await this.poll(key, null);
    if (unfinished) await finishPoll(this.options.sql, unfinished);
    return recorded;
  }

  /**
   * One Trigger's poll, left unfinished for the caller. `carried`, the lane's previous poll, is finished by the
   * time this returns or throws: with this claim when it gets that far, else on its own.
   */
  private async poll(
    key: PollKey | DuePoll,
    carried: UnfinishedPoll | null,
  ): Promise<{ recorded: RecordedPoll | null; unfinished: UnfinishedPoll | null }> {
    const { store, sql } = this.options;
    let finishing = carried;
    const claimFinishing = async (leaseMs: number, token: string) => {
      const claim = await claimPoll(sql, key, leaseMs, token, finishing);
      finishing = null;
      return claim;
    };
    try {
      const token = randomUUID();
      const { trigger, poll: loaded } = await loadPollInputs(store, key.tenant, key.triggerId);
      if (trigger.status === 'absent' || trigger.deleted || !trigger.enabled || !isPollTrigger(trigger)) {
        const claimed = await claimFinishing(NOT_POLLED_RETRY_MS, token);
        return { recorded: null, unfinished: claimed ? { key, token, delayMs: NOT_POLLED_RETRY_MS } : null };
      }
      const poll = trigger.definition.poll;
      // A Trigger deleted and created again is a new life: no cursor, hold, failures or secret of the old one.
      const state = pollStateFor(loaded.state, trigger.createdRevision);
      if ('replan' in key && key.replan) {
        const delaySeconds = replanDelaySeconds(state, poll);
        await replanPoll(
          sql,
          key,
          { revision: trigger.revision, createdRevision: trigger.createdRevision },
          delaySeconds,
        );
      }
      const leaseMs = poll.timeoutSeconds * 1000 + (this.options.leaseMarginMs ?? DEFAULT_LEASE_MARGIN_MS);
      const claim = await claimFinishing(leaseMs, token);
      if (!claim) return { recorded: null, unfinished: null };
      // PO-4: held until an operator sets the cursor; looked at again each interval, never fetched.
      if (state.held !== null)
        return {
          recorded: null,
          unfinished: { key, token, delayMs: poll.everySeconds * 1000, revision: trigger.revision },
        };
      const auth = await credentialsFor(this.options.secrets, key, poll, state);
      const fetched: PollFetch = auth.ok
        ? await this.options.connector.fetch(poll, cursorFor(state, poll.url), auth.credentials)
        : { ok: false, failure: auth.failure };
      const recorded = await recordPoll(
        store,
        trigger,
        { loaded, now: clockFrom(claim.claimedAt) },
        fetched,
        this.append,
      );
      this.options.onPolled?.(key, recorded);
      const delayMs = nextPollDelaySeconds(poll.everySeconds, recorded.state.consecutiveFailures) * 1000;
      return { recorded, unfinished: { key, token, delayMs, revision: trigger.revision } };
    } finally {
      if (finishing) await finishPoll(sql, finishing);
    }
  }

  /** Until the next poll is due by the database clock. */
  protected async idleFor(): Promise<number> {
    return idleUntil(await msUntilNextPoll(this.options.sql), this.options.maxIdleMs ?? DEFAULT_MAX_IDLE_MS);
  }
}

/**
 * The database clock (SC-6) without a query per reading: the claim's own timestamp plus the monotonic time since
 * it came back. Behind the database's clock by at most the claim's reply time, never ahead of it.
 */
function clockFrom(claimedAt: string): () => Promise<Date> {
  const base = Date.parse(claimedAt);
  const since = performance.now();
  return () => Promise.resolve(new Date(base + (performance.now() - since)));
}
