import { Command } from '@nestjs/cqrs';
import type { TriggerRevisionResult } from '../revise-trigger/revise-trigger.command.js';
import type { CommandContext } from '../shared/command-context.js';

/** Delete a Trigger: a final revision (DELETE /v1/triggers/{triggerId}); a later PUT at revision 0 re-creates it. */
export class DeleteTriggerCommand extends Command<TriggerRevisionResult> {
  constructor(
    readonly context: CommandContext,
    readonly triggerId: string,
    readonly body: { reason?: string; expectedRevision?: number },
  ) {
    super();
  }
}
