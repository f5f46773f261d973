import { Command } from '@nestjs/cqrs';
import type { ClaimResult } from '../claim-execution/claim-execution.command.js';
import type { CommandContext } from '../shared/command-context.js';

/** An execution the caller's read of pending work offered, oldest first. */
export interface ClaimCandidate {
  executionId: string;
  missionId: string;
  /**
   * Which delivery of the execution the read offered (its row's queue position and claim window): a claim of this
   * process won that very offer if it is the one remembered, whatever the read model has folded since.
   */
  offer?: string;
}

/**
 * EX-2 pull: claim the first candidate still claimable with the same compare-and-set as `claim`. The
 * candidates are facts the adapter read (commands never query read models); null when none could be claimed.
 */
export class ClaimNextExecutionCommand extends Command<ClaimResult | null> {
  constructor(
    readonly context: CommandContext,
    readonly consumerId: string,
    readonly candidates: readonly ClaimCandidate[],
  ) {
    super();
  }
}
