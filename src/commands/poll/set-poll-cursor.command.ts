import { Command } from '@nestjs/cqrs';
import type { PollState } from '../../domain/poll/poll-events.js';
import type { CommandContext } from '../shared/command-context.js';

export interface PollCursorResult {
  triggerId: string;
  cursor: string | null;
  previous: string | null;
  /** The hold this released, if the Trigger was held. */
  released: PollState['held'];
  position: number;
}

/** PO-1: an operator sets a poll Trigger's cursor for later polls (recorded; releases a hold). */
export class SetPollCursorCommand extends Command<PollCursorResult> {
  constructor(
    readonly context: CommandContext,
    readonly triggerId: string,
    readonly cursor: string | null,
    readonly reason: string,
    /** The request's Idempotency-Key, recorded with the event for the audit trail. */
    readonly idempotencyKey: string,
  ) {
    super();
  }
}
