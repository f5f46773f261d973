import { Command } from '@nestjs/cqrs';
import type { ExpectedCorrelation } from '../../domain/causality/correlation-events.js';
import type { CommandContext } from '../shared/command-context.js';

export interface RecordedOperation {
  operationId: string;
  position: number;
}

/** CA-2: the claim holder records an Operation with the correlation its action's answer will carry. */
export class RecordOperationCommand extends Command<RecordedOperation> {
  constructor(
    readonly context: CommandContext,
    readonly executionId: string,
    readonly fence: number,
    readonly operationId: string,
    readonly correlation: ExpectedCorrelation,
  ) {
    super();
  }
}
