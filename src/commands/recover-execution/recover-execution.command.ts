import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '../shared/command-context.js';

export interface RecoveryResult {
  executionId: string;
  /** Kept when no attempt of the generation ran (an unclaimed dead letter), else the next one. */
  generation: number;
  status: 'pending';
  position: number;
}

/** EX-4: an operator delivers a dead-lettered, failed or noncommitted execution again, audited. */
export class RecoverExecutionCommand extends Command<RecoveryResult> {
  constructor(
    readonly context: CommandContext,
    readonly executionId: string,
    readonly reason: string,
    /** The request's Idempotency-Key, recorded on `RecoveryRequested` for the audit trail. */
    readonly idempotencyKey: string,
  ) {
    super();
  }
}
