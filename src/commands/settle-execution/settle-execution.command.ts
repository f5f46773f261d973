import { Command } from '@nestjs/cqrs';
import type { CompletionReceipt } from '../../domain/execution/index.js';
import type { CommandContext } from '../shared/command-context.js';

export type SettlementResult =
  | { executionId: string; decision: 'committed'; receipt: CompletionReceipt; position: number }
  | { executionId: string; decision: 'noncommitted'; position: number };

/** EX-3: resolve an uncertain claim: the committed receipt, or a permanent noncommit tombstone. */
export class SettleExecutionCommand extends Command<SettlementResult> {
  constructor(
    readonly context: CommandContext,
    readonly executionId: string,
    readonly settlementId: string,
  ) {
    super();
  }
}
