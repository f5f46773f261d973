import { Command } from '@nestjs/cqrs';
import type { ExecutionError, ExecutionOutcome, ExecutionStatus } from '../../domain/execution/index.js';
import type { CommandContext } from '../shared/command-context.js';

export interface CompletionResult {
  executionId: string;
  /** `completed`, `failed`, or for a retryable failure `retrying` / `dead_lettered` (EX-4). */
  status: ExecutionStatus;
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
    readonly retryable = false,
    readonly error: ExecutionError | null = null,
  ) {
    super();
  }
}
