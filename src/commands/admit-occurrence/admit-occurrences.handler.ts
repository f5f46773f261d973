import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { TrustedClock } from '../shared/trusted-clock.js';
import { EVENT_STORE } from '../shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { WrongExpectedRevision } from '../../domain/shared/errors.js';
import { AdmitOccurrenceCommand } from './admit-occurrence.command.js';
import { AdmitOccurrencesCommand } from './admit-occurrences.command.js';
import { type ObservedState } from '../../domain/admission/index.js';
import { write } from '../shared/write-kernel.js';
import { admissionWrite, fromObservation } from './admission-write.js';
import { DecisionNotifier } from './decision-notifier.js';

/**
 * One Mission's backlog read once and appended once, counted as one by one would. A stream that moved
 * meanwhile fails the whole append, and each Occurrence is then admitted on its own.
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
    const observed = observations
      .map((e) => ({ event: e, state: fromObservation(e).state }))
      .filter((o): o is { event: typeof o.event; state: ObservedState } => o.state.status === 'observed');
    if (observed.length > 1 && observed.every((o) => o.event.revision === 0)) {
      try {
        return await this.admitTogether(observed);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevision)) throw error;
      }
    }
    for (const { event } of observed)
      await this.commands.execute(
        new AdmitOccurrenceCommand(event.streamId, observed.length === 1 ? event : undefined),
      );
  }

  /** One attempt only: a conflict means something moved, and one by one re-reads exactly what did. */
  private async admitTogether(observed: Array<{ event: { streamId: string }; state: ObservedState }>): Promise<void> {
    const items = observed.map(({ event, state }) => ({ streamId: event.streamId, expected: 0, state }));
    const { decisions } = await write(this.store, () => admissionWrite(this.store, this.clock, items), {
      maxAttempts: 1,
    });
    decisions.forEach((decision) => this.notifier.decided(decision));
  }
}
