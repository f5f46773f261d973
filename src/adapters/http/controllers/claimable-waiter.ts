import { PENDING_EXECUTIONS_PROJECTION } from '../../../projections/pending-executions/pending-executions.projection.js';
import { InProcessWakeups } from '../../wakeup/in-process-wakeups.js';
import { ProjectionRunners } from '../../runner/projection-runners.js';

/** Which pending work a long poll looks for: its tenant and claim-next's filters. */
export interface PendingWorkQuery {
  tenant: string;
  missionId?: string;
  triggerId?: string;
}

/** What a caller noted before a read of pending work (`mark`): a change after it ends the next wait at once. */
export type WaitMark = number;

/**
 * What a long-polling `claim-next` waits on between two reads of pending work. `wait` resolves when work may have
 * become claimable since `mark`, or after `timeoutMs`; `relay` passes a read's finds on to other waiters.
 */
export interface ClaimableWaiter {
  mark(): WaitMark;
  /**
   * Whether the caller looks first: true when a fold or a wakeup ended the wait, so what its next read finds is
   * news to pass on (`relay`); false when its timeout, another poll's relay or a change since `since` did.
   */
  wait(query: PendingWorkQuery, timeoutMs: number, since: WaitMark): Promise<boolean>;
  /** A first look found `count` candidates more than its caller claims: up to that many waiters of the query look too. */
  relay(query: PendingWorkQuery, count: number): void;
}

export const CLAIMABLE_WAITER = Symbol('CLAIMABLE_WAITER');

interface Waiting {
  key: string;
  tenant: string;
  wake: (first: boolean) => void;
}

const keyOf = ({ tenant, missionId, triggerId }: PendingWorkQuery) =>
  JSON.stringify([tenant, missionId ?? null, triggerId ?? null]);

/**
 * Wakes long polls when this process's pending-executions read model folds (what claim-next reads; an append alone
 * makes nothing readable there yet) or a wakeup of their tenant arrives (EX-1, EX-4). Not all of them: waking every
 * waiter for a fold of a few executions sent them all into the same compare-and-sets, whose losers retried (a claim
 * took 100–300 ms at 30 fires/s). The longest waiter of each query looks first and relays what it found to as many
 * others, who relay nothing. Folds by other processes are not seen here, so callers also re-read on a short timeout.
 */
export class RelayWaiter implements ClaimableWaiter {
  private changes = 0;
  private waiting: Waiting[] = [];
  private readonly wakingUp = new Set<string>();

  /** The read model folded: anything may have become claimable, for any tenant. */
  folded(): void {
    this.changes++;
    this.wakeFirst(() => true);
  }

  /**
   * A wakeup of `tenant` (an admission, redelivery or recovery). They come one per execution, many in one message,
   * and ahead of the fold that makes their executions readable: one look per tenant for all of them.
   */
  wokenUp(tenant: string): void {
    this.changes++;
    if (this.wakingUp.has(tenant)) return;
    this.wakingUp.add(tenant);
    setImmediate(() => {
      this.wakingUp.delete(tenant);
      this.wakeFirst((waiting) => waiting.tenant === tenant);
    });
  }

  mark(): WaitMark {
    return this.changes;
  }

  relay(query: PendingWorkQuery, count: number): void {
    const key = keyOf(query);
    this.waiting
      .filter((waiting) => waiting.key === key)
      .slice(0, Math.max(count, 0))
      .forEach((waiting) => waiting.wake(false));
  }

  wait(query: PendingWorkQuery, timeoutMs: number, since: WaitMark): Promise<boolean> {
    // Not a first look: under load the folds are mostly other polls' claims, and a poll that relayed whenever one
    // landed during its read woke the others into the same few candidates, again and again.
    if (this.changes > since) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiting: Waiting = {
        key: keyOf(query),
        tenant: query.tenant,
        wake: (first) => {
          clearTimeout(timer);
          this.waiting = this.waiting.filter((other) => other !== waiting);
          resolve(first);
        },
      };
      // A re-read on time is no news: every parked poll has its own, and one of them runs out every few ms.
      const timer = setTimeout(() => waiting.wake(false), timeoutMs);
      timer.unref?.();
      this.waiting.push(waiting);
    });
  }

  /** Long polls parked here, for tests. */
  get parked(): number {
    return this.waiting.length;
  }

  /** The longest waiter of each query `concerned` selects. */
  private wakeFirst(concerned: (waiting: Waiting) => boolean): void {
    const keys = new Set<string>();
    for (const waiting of this.waiting.filter(concerned)) {
      if (keys.has(waiting.key)) continue;
      keys.add(waiting.key);
      waiting.wake(true);
    }
  }
}

export const claimableWaiterProvider = {
  provide: CLAIMABLE_WAITER,
  useFactory: (runners: ProjectionRunners, wakeups: InProcessWakeups): ClaimableWaiter => {
    const waiter = new RelayWaiter();
    runners.get(PENDING_EXECUTIONS_PROJECTION).onFolded(() => waiter.folded());
    wakeups.onNotified((wakeup) => waiter.wokenUp(wakeup.tenant));
    return waiter;
  },
  inject: [ProjectionRunners, InProcessWakeups],
};
