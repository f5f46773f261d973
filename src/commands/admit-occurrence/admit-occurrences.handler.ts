import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { TrustedClock } from '../shared/trusted-clock.js';
import { EVENT_STORE } from '../shared/tokens.js';
import { type EventStore, type RecordedEvent } from '../../domain/ports/event-store.js';
import { WrongExpectedRevision } from '../../domain/shared/errors.js';
import { AdmitOccurrenceCommand } from './admit-occurrence.command.js';
import { AdmitOccurrencesCommand } from './admit-occurrences.command.js';
import { type ObservedState } from '../../domain/admission/index.js';
import { write } from '../shared/write-kernel.js';
import { admissionWrite, fromObservation, type ToAdmit } from './admission-write.js';
import { DecisionNotifier } from './decision-notifier.js';
import { deliverToSubscriptions } from './subscription-delivery.js';

interface Observed {
  event: RecordedEvent;
  state: ObservedState;
}

/**
 * A backlog read once and appended once, each Mission's Occurrences counted in acceptance order as one by
 * one would. A stream that moved meanwhile fails the whole append: then each Mission is admitted on its
 * own (unrelated Missions concurrently, AD-5), and after a conflict there each of its Occurrences alone.
 */
@CommandHandler(AdmitOccurrencesCommand)
export class AdmitOccurrencesHandler implements ICommandHandler<AdmitOccurrencesCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(TrustedClock) private readonly clock: TrustedClock,
    private readonly notifier: DecisionNotifier,
    private readonly commands: CommandBus,
  ) {}

  async execute({ observations }: AdmitOccurrencesCommand): Promise<void> {
    const read = observations
      .map((e) => ({ event: e, state: fromObservation(e).state }))
      .filter((o): o is Observed => o.state.status === 'observed');
    // SU-1: delivery to wait-for subscriptions comes first, in acceptance order; what it decides is not admitted.
    const subscribed = await deliverToSubscriptions(
      this.store,
      this.clock,
      read.map(({ event, state }) => ({
        streamId: event.streamId,
        observedAt: event.position,
        state,
        revision: event.revision,
      })),
    );
    subscribed.forEach((decision) => this.notifier.decided(decision));
    const taken = new Set(subscribed.map((d) => d.occurrenceId));
    const observed = read.filter((o) => !taken.has(o.state.occurrence.occurrenceId));
    if (observed.length === 0) return;
    const missions = byMission(observed);
    if (missions.length > 1 && together(observed)) {
      try {
        return await this.admitTogether(missions);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevision)) throw error;
      }
    }
    await Promise.all(missions.map((mission) => this.admitMission(mission)));
  }

  private async admitMission(observed: readonly Observed[]): Promise<void> {
    if (observed.length > 1 && together(observed)) {
      try {
        return await this.admitTogether([observed]);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevision)) throw error;
      }
    }
    for (const { event } of observed)
      await this.commands.execute(
        new AdmitOccurrenceCommand(event.streamId, observed.length === 1 ? event : undefined),
      );
  }

  /** One attempt only: a conflict means something moved, and the finer path re-reads exactly what did. */
  private async admitTogether(missions: readonly (readonly Observed[])[]): Promise<void> {
    const groups: ToAdmit[][] = missions.map((observed) =>
      observed.map(({ event, state }) => ({ streamId: event.streamId, expected: 0, state })),
    );
    const { decisions } = await write(this.store, () => admissionWrite(this.store, this.clock, groups), {
      maxAttempts: 1,
    });
    decisions.forEach((decision) => this.notifier.decided(decision));
  }
}

/** Acceptance order kept within each Mission; Missions in the order their first Occurrence came. */
function byMission(observed: readonly Observed[]): Observed[][] {
  const missions = new Map<string, Observed[]>();
  for (const o of observed) {
    const key = JSON.stringify([o.state.occurrence.tenant, o.state.occurrence.missionId]);
    const queue = missions.get(key);
    if (queue) queue.push(o);
    else missions.set(key, [o]);
  }
  return [...missions.values()];
}

/**
 * One write needs each Occurrence's stream at its first event, and each Trigger in one Mission only (its
 * overlap marker is one stream): a Trigger moved to another Mission may still have Occurrences bound to the old.
 */
function together(observed: readonly Observed[]): boolean {
  if (!observed.every((o) => o.event.revision === 0)) return false;
  const missionOf = new Map<string, string>();
  for (const { state } of observed) {
    const { tenant, triggerId, missionId } = state.occurrence;
    const trigger = JSON.stringify([tenant, triggerId]);
    if ((missionOf.get(trigger) ?? missionId) !== missionId) return false;
    missionOf.set(trigger, missionId);
  }
  return true;
}
