import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, DUE_SCHEDULES, EVENT_STORE } from '../shared/tokens.js';
import { type Clock } from '../../domain/ports/clock.js';
import { type DueSchedules } from '../../domain/ports/due-schedules.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { dismissHeld, releaseHeld } from '../../domain/schedule/materialization.js';
import type { ScheduleEvent } from '../../domain/schedule/schedule-events.js';
import { type CommandContext, metadataOf } from '../shared/command-context.js';
import { asDomainEvent } from '../shared/aggregate.js';
import { findOwnWrite } from '../shared/own-write.js';
import { reportReplayedWrite } from '../shared/replayed-writes.js';
import { scheduleStream } from '../../domain/shared/ids.js';
import { CommandRejected, notFound } from '../../domain/shared/errors.js';
import { decideFromStream } from './decide-from-stream.js';
import { DecideHeldInstantsCommand, type HeldDecisionResult } from './decide-held-instants.command.js';

/**
 * Decided like the materializer decides (same stream, same commit), so a release racing the
 * materializer or another release converges: the loser re-reads and finds less, or nothing, held.
 */
@CommandHandler(DecideHeldInstantsCommand)
export class DecideHeldInstantsHandler implements ICommandHandler<DecideHeldInstantsCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(DUE_SCHEDULES) private readonly schedules: DueSchedules,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ context, triggerId, action, reason }: DecideHeldInstantsCommand): Promise<HeldDecisionResult> {
    const earlier = await this.ownEarlierDecision(context, triggerId);
    if (earlier) return { triggerId, action, ...summary(earlier.events), position: earlier.position };
    const now = (await this.clock.now()).toISOString();
    const tzdataVersion = process.versions.tz ?? null;
    const outcome = await decideFromStream(
      { store: this.store, schedules: this.schedules },
      context.tenant,
      triggerId,
      now,
      (trigger, state) => {
        const command = { trigger, now, actor: context.actor, reason, tzdataVersion };
        return action === 'release'
          ? releaseHeld({ type: 'ReleaseHeldInstants', ...command }, state)
          : dismissHeld({ type: 'DismissHeldInstants', ...command }, state);
      },
      metadataOf(context),
    );
    if (outcome.kind === 'missing') throw notFound();
    if (outcome.kind === 'rejected') throw new CommandRejected(outcome.rejection);
    if (outcome.kind === 'unchanged') throw new Error('a held decision always appends');
    return { triggerId, action, ...summary(outcome.events), position: outcome.position };
  }

  /**
   * SEC-3: a retry that took its key over from a run that died may find that run's decision committed; it answers
   * from those events (decision 9) instead of deciding again on what the first run already released or dismissed.
   */
  private async ownEarlierDecision(
    context: CommandContext,
    triggerId: string,
  ): Promise<{ events: ScheduleEvent[]; position: number } | null> {
    if (!context.idempotency?.takenOver) return null;
    const recorded = await this.store.readStream(scheduleStream(context.tenant, triggerId));
    const own = findOwnWrite(recorded, context.idempotency);
    if (own) reportReplayedWrite();
    return own ? { events: own.own.map((e) => asDomainEvent<ScheduleEvent>(e)), position: own.position } : null;
  }
}

function summary(events: readonly ScheduleEvent[]): Pick<HeldDecisionResult, 'released' | 'dismissed' | 'held'> {
  const result: Pick<HeldDecisionResult, 'released' | 'dismissed' | 'held'> = { released: [], dismissed: [], held: [] };
  for (const e of events) {
    if (e.type === 'ScheduleMaterialized') Object.assign(result, { released: e.data.fired, held: e.data.held });
    if (e.type === 'MissedOccurrencesSkipped' && e.data.cause === 'dismissed')
      result.dismissed.push({ from: e.data.from, to: e.data.to, count: e.data.count });
  }
  return result;
}
