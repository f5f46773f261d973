import { randomUUID } from 'node:crypto';
import { isPollTrigger, loadPollState, type RecordedPoll, recordPoll } from '../../commands/poll/record-poll.js';
import { currentTrigger } from '../../commands/shared/lookups.js';
import type { EventStore } from '../../domain/ports/event-store.js';
import type { PollConnector } from '../../domain/ports/poll-connector.js';
import { cursorFor, nextPollDelaySeconds } from '../../domain/poll/poll.js';
import { claimPoll, duePolls, finishPoll, msUntilNextPoll, type PollKey } from '../../projections/poll/poll-due.js';
import type { AppendSignal } from '../../projections/runner/append-signal.js';
import type { SqlClient } from '../../projections/sql-client.js';
import type { BatchAppender } from '../../commands/shared/write-kernel.js';
import { orderedAppends } from './ordered-appends.js';
import type { BackgroundTask } from '../runner/subscription-registry.js';

export const POLL_LOOP = 'poller:poll';

export interface PollLoopOptions {
  store: EventStore;
  sql: SqlClient;
  signal?: AppendSignal;
  connector: PollConnector;
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
const MIN_IDLE_MS = 20;
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
export class PollLoop implements BackgroundTask {
  readonly name = POLL_LOOP;
  private running = false;
  private loop: Promise<void> | null = null;
  private lastError: unknown = null;
  private passes = 0;
  private wake: (() => void) | null = null;
  private readonly append: BatchAppender;

  constructor(private readonly options: PollLoopOptions) {
    this.append = orderedAppends(options.store, options.sql, options.signal);
  }

  get error(): unknown {
    return this.lastError;
  }

  get starting(): boolean {
    return this.running && this.passes === 0;
  }

  /** One pass over the Triggers due now; returns how many it polled. */
  async runOnce(): Promise<number> {
    const due = await duePolls(this.options.sql, DUE_PER_ROUND);
    let polled = 0;
    let failure: unknown = null;
    const workers = Array.from({ length: this.options.concurrency ?? DEFAULT_CONCURRENCY }, async () => {
      for (let next = due.shift(); next; next = due.shift()) {
        try {
          if (await this.pollTrigger(next)) polled++;
        } catch (error) {
          // One Trigger whose poll cannot be recorded must not hold back the others; its lease runs out.
          failure = error;
        }
      }
    });
    await Promise.all(workers);
    if (failure) throw failure;
    return polled;
  }

  /** Claims, fetches and records one Trigger's poll; null when another poller owns it or it is not due. */
  async pollTrigger(key: PollKey): Promise<RecordedPoll | null> {
    const { store, sql } = this.options;
    const token = randomUUID();
    const trigger = await currentTrigger(store, key.tenant, key.triggerId);
    if (trigger.status === 'absent' || trigger.deleted || !trigger.enabled || !isPollTrigger(trigger)) {
      if (await claimPoll(sql, key, NOT_POLLED_RETRY_MS, token)) await finishPoll(sql, key, token, NOT_POLLED_RETRY_MS);
      return null;
    }
    const poll = trigger.definition.poll;
    const leaseMs = poll.timeoutSeconds * 1000 + (this.options.leaseMarginMs ?? DEFAULT_LEASE_MARGIN_MS);
    if (!(await claimPoll(sql, key, leaseMs, token))) return null;
    const loaded = await loadPollState(store, key.tenant, key.triggerId);
    if (loaded.state.held !== null) {
      // PO-4: held until an operator sets the cursor; looked at again each interval, never fetched.
      await finishPoll(sql, key, token, poll.everySeconds * 1000);
      return null;
    }
    const fetched = await this.options.connector.fetch(poll, cursorFor(loaded.state, poll.url));
    const recorded = await recordPoll(store, trigger, loaded.state.seq, fetched, this.append);
    await finishPoll(
      sql,
      key,
      token,
      nextPollDelaySeconds(poll.everySeconds, recorded.state.consecutiveFailures) * 1000,
    );
    this.options.onPolled?.(key, recorded);
    return recorded;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = null;
  }

  private async run(): Promise<void> {
    let backoff = 100;
    while (this.running) {
      try {
        await this.runOnce();
        this.passes++;
        this.lastError = null;
        backoff = 100;
        await this.pause(await this.idleFor());
      } catch (error) {
        this.passes++;
        this.lastError = error;
        this.options.onError?.(error);
        backoff = Math.min(backoff * 2, 5_000);
        await this.pause(backoff);
      }
    }
  }

  /** Until the next poll is due by the database clock, within [MIN_IDLE_MS, maxIdleMs]. */
  private async idleFor(): Promise<number> {
    const maxIdle = this.options.maxIdleMs ?? DEFAULT_MAX_IDLE_MS;
    const next = await msUntilNextPoll(this.options.sql);
    return next === null ? maxIdle : Math.min(maxIdle, Math.max(MIN_IDLE_MS, Math.ceil(next)));
  }

  private pause(ms: number): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(finish, ms);
      timer.unref?.();
      this.wake = finish;
    });
  }
}
