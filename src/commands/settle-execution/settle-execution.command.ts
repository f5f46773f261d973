import { Command } from '@nestjs/cqrs';
import type { SettledCompletion } from '../../domain/execution/index.js';
import type { CommandContext } from '../shared/command-context.js';

export type SettlementResult =
  | {
      executionId: string;
      decision: 'committed';
      /** Exactly what the consumer completed with (null when none), EX-3. */
      receipt: unknown;
      completion: SettledCompletion;
      position: number;
    }
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
