import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { ExecutionEvent } from '../../domain/execution/index.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { CommandRejected, WrongExpectedRevision } from '../../domain/shared/errors.js';
import { executionStream } from '../../domain/shared/ids.js';
import type { ClaimResult } from '../claim-execution/claim-execution.command.js';
import { claimExecution } from '../claim-execution/claim-execution.handler.js';
import { EVENT_STORE } from '../shared/tokens.js';
import { TrustedClock } from '../shared/trusted-clock.js';
import { type ClaimCandidate, ClaimNextExecutionCommand } from './claim-next-execution.command.js';

/**
 * What a stale candidate answers: another consumer won it, or it ended. The read model trails the log, so
 * these are expected, and the next candidate is tried.
 */
const MOVE_ON = new Set([
  'already_claimed',
  'execution_completed',
  'execution_noncommitted',
  'execution_dead_lettered',
  'not_pending',
  'not_found',
]);

/** An execution whose last event is one of these cannot be claimed now (EX-2, EX-4: a retry waits for its backoff). */
const HELD_OR_ENDED = new Set<string>([
  'ExecutionClaimed',
  'ExecutionCompleted',
  'ExecutionSettled',
  'ExecutionRetryScheduled',
  'ExecutionDeadLettered',
] satisfies Array<ExecutionEvent['type']>);

/** Enough to outlast any read model's lag at thousands of claims a second; the oldest are forgotten first. */
const OFFERS_REMEMBERED = 10_000;

@CommandHandler(ClaimNextExecutionCommand)
export class ClaimNextExecutionHandler implements ICommandHandler<ClaimNextExecutionCommand> {
  /**
   * Executions a claim of this process is appending for right now. Racing consumers all read the same oldest
   * candidates; skipping these sends them to the next ones instead of into a compare-and-set they would lose (and
   * retry, loading the winner's append too). Should that claim fail, the execution is offered again by the next read.
   */
  private readonly inFlight = new Set<string>();
  /**
   * The offers this process's claims won, by execution. The read model trails the log, so it keeps offering them
   * for a while; they are passed over without reading their streams. Another process's wins are not known here:
   * the first candidate found taken sends the rest through one read of their streams.
   */
  private readonly won = new Map<string, string>();

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(TrustedClock) private readonly clock: TrustedClock,
  ) {}

  /**
   * Oldest first. A consumer that lost a race jumps to a random remaining candidate, so racing consumers
   * scatter instead of all losing the next oldest too; an uncontended consumer keeps acceptance order.
   */
  async execute({ context, consumerId, candidates }: ClaimNextExecutionCommand): Promise<ClaimResult | null> {
    const remaining = candidates.filter((c) => !this.inFlight.has(c.executionId) && !this.wonHere(c));
    const fullMissions = new Set<string>();
    let checked = false;
    let next = 0;
    while (remaining.length > 0) {
      const [candidate] = remaining.splice(next, 1) as [ClaimCandidate];
      const { executionId, missionId } = candidate;
      next = 0;
      if (fullMissions.has(missionId) || this.inFlight.has(executionId)) continue;
      this.inFlight.add(executionId);
      try {
        const claimed = await claimExecution(this.store, this.clock, context, executionId, consumerId, {
          missionHint: missionId,
        });
        this.remember(candidate);
        return claimed;
      } catch (error) {
        // The retry policy gave up on this execution or its slot stripe: that says nothing about the Mission's room
        // (only `concurrency_limit` or `claim_refused`, decided from a fresh read, does), so the next is still tried.
        if (error instanceof WrongExpectedRevision) {
          next = Math.floor(Math.random() * remaining.length);
          continue;
        }
        if (!(error instanceof CommandRejected)) throw error;
        const { code } = error.rejection;
        // Its Mission runs no more now: at its limit, or paused, cancelled or revoked (AD-2) since the read model saw it.
        if (code === 'concurrency_limit' || code === 'claim_refused') fullMissions.add(missionId);
        else if (!MOVE_ON.has(code)) throw error;
        else {
          // Taken or ended where this process did not see it: the others are most likely stale too.
          if (!checked) remaining.splice(0, remaining.length, ...(await this.unclaimed(remaining)));
          checked = true;
          if (code === 'already_claimed') next = Math.floor(Math.random() * remaining.length);
        }
      } finally {
        this.inFlight.delete(executionId);
      }
    }
    return null;
  }

  private wonHere(candidate: ClaimCandidate): boolean {
    return candidate.offer !== undefined && this.won.get(candidate.executionId) === candidate.offer;
  }

  private remember({ executionId, offer }: ClaimCandidate): void {
    if (offer === undefined) return;
    this.won.delete(executionId);
    this.won.set(executionId, offer);
    if (this.won.size > OFFERS_REMEMBERED) this.won.delete(this.won.keys().next().value!);
  }

  /** One round trip drops the candidates the log already shows claimed or ended, which a lagging read model still offers. */
  private async unclaimed(candidates: readonly ClaimCandidate[]): Promise<ClaimCandidate[]> {
    if (!this.store.readStreams || candidates.length === 0) return [...candidates];
    const streams = await this.store.readStreams(
      candidates.map((c) => ({ streamId: executionStream(c.executionId), fromRevision: 0 })),
    );
    return candidates.filter((_, i) => !HELD_OR_ENDED.has(streams[i]?.at(-1)?.type ?? ''));
  }
}
