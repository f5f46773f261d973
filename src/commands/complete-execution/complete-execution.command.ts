import { Command } from '@nestjs/cqrs';
import type { ExecutionOutcome } from '../../domain/execution/index.js';
import type { CommandContext } from '../shared/command-context.js';

export interface CompletionResult {
  executionId: string;
  status: 'completed';
  outcome: ExecutionOutcome;
  fence: number;
  position: number;
}

/** EX-2: the claim holder reports the outcome with its fence. */
export class CompleteExecutionCommand extends Command<CompletionResult> {
  constructor(
    readonly context: CommandContext,
    readonly executionId: string,
    readonly fence: number,
    readonly outcome: ExecutionOutcome,
    readonly receipt: unknown,
  ) {
    super();
  }
}
