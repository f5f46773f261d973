import { Command } from '@nestjs/cqrs';
import type { RecordedEvent } from '../../domain/ports/event-store.js';

/**
 * Decide several observed Occurrences of one Mission, in acceptance order, with one read of current
 * state and one all-or-nothing append (AD-1, AD-2, AD-5). Falls back to one by one on any conflict.
 */
export class AdmitOccurrencesCommand extends Command<void> {
  constructor(
    /** OccurrenceObserved events of one tenant's Mission, each its stream's first event. */
    readonly observations: readonly RecordedEvent[],
  ) {
    super();
  }
}
