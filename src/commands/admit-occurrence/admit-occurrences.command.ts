import { Command } from '@nestjs/cqrs';
import type { RecordedEvent } from '../../domain/ports/event-store.js';

/** Decide one Mission's observed Occurrences in acceptance order with one read and one append (AD-5). */
export class AdmitOccurrencesCommand extends Command<void> {
  constructor(
    /** OccurrenceObserved events of one tenant's Mission, each its stream's first event. */
    readonly observations: readonly RecordedEvent[],
  ) {
    super();
  }
}
