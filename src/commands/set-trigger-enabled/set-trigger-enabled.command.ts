import { Command } from '@nestjs/cqrs';
import type { TriggerRevisionResult } from '../revise-trigger/revise-trigger.command.js';
import type { CommandContext } from '../shared/command-context.js';

/** Enable or disable a Trigger; each is a revision (POST /v1/triggers/{id}/enable|disable). */
export class SetTriggerEnabledCommand extends Command<TriggerRevisionResult> {
  constructor(
    readonly context: CommandContext,
    readonly triggerId: string,
    readonly enabled: boolean,
    readonly body: { reason?: string; expectedRevision?: number },
  ) {
    super();
  }
}
