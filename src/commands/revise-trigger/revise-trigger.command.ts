import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '../shared/command-context.js';

export interface TriggerRevisionResult {
  triggerId: string;
  revision: number;
  position: number;
}

/** Create or revise a Trigger from its whole definition (PUT /v1/triggers/{triggerId}). */
export class ReviseTriggerCommand extends Command<TriggerRevisionResult> {
  constructor(
    readonly context: CommandContext,
    readonly triggerId: string,
    readonly body: Record<string, unknown>,
  ) {
    super();
  }
}
