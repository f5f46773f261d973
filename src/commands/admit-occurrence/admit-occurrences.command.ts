import { Command } from '@nestjs/cqrs';
import type { RecordedEvent } from '../../domain/ports/event-store.js';

/** Decide observed Occurrences, each Mission's in acceptance order, with one read and one append (AD-5). */
export class AdmitOccurrencesCommand extends Command<void> {
  constructor(
    /** OccurrenceObserved events in acceptance order, of any Missions. */
    readonly observations: readonly RecordedEvent[],
  ) {
    super();
  }
}
