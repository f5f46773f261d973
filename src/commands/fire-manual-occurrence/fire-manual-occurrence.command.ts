import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '../shared/command-context.js';

export interface ManualFireResult {
  occurrenceId: string;
  status: 'observed';
  position: number;
}

/** Fire a manual occurrence; the Idempotency-Key is its delivery identity. */
export class FireManualOccurrenceCommand extends Command<ManualFireResult> {
  constructor(
    readonly context: CommandContext,
    readonly triggerId: string,
    readonly idempotencyKey: string,
    readonly input: unknown,
    readonly resourceRefs: string[],
  ) {
    super();
  }
}
