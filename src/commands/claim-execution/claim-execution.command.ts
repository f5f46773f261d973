import { Command } from '@nestjs/cqrs';
import type { ClaimLimits } from '../../domain/execution/claim-limits.js';
import type { CommandContext } from '../shared/command-context.js';

/** What a consumer needs to run the execution it claimed (EX-2). */
export interface ClaimResult {
  executionId: string;
  fence: number;
  generation: number;
  /** EX-4: the delivery this claim took (1-based, counted across generations). */
  attempt: number;
  occurrenceId: string;
  triggerId: string;
  triggerRevision: number;
  missionId: string;
  lane: string;
  scheduledAt: string | null;
  firedAt: string;
  input: unknown;
  resourceRefs: string[];
  /** EX-5: the admitting Trigger revision's declared runtime/budget, members left out when not declared. */
  limits: ClaimLimits;
  /** DD-5: every member of the coalesced group it stands for, in acceptance order. */
  members?: string[];
}

/** EX-2: claim before any side effect; a compare-and-set that returns the fence. */
export class ClaimExecutionCommand extends Command<ClaimResult> {
  constructor(
    readonly context: CommandContext,
    readonly executionId: string,
    readonly consumerId: string,
  ) {
    super();
  }
}
