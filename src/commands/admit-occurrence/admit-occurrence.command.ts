import { Command } from '@nestjs/cqrs';
import type { RecordedEvent } from '../../domain/ports/event-store.js';

export interface AdmissionResult {
  occurrenceId: string;
  /** Not decided yet: `held` waits in a coalescing group (DD-5), `joined_batch` in a batch (BA-1), until it closes. */
  decision:
    | 'admitted'
    | 'blocked'
    | 'suppressed'
    | 'batched'
    | 'coalesced'
    | 'subscribed'
    | 'held'
    | 'joined_batch'
    | 'already_decided';
  executionId: string | null;
  position: number;
}

/** Decide one observed Occurrence against current state (AD-1, AD-2); safe to run concurrently. */
export class AdmitOccurrenceCommand extends Command<AdmissionResult> {
  constructor(
    readonly occurrenceStreamId: string,
    /** The stream's OccurrenceObserved as the caller already read it (saves reading it again). */
    readonly observed?: RecordedEvent,
  ) {
    super();
  }
}
