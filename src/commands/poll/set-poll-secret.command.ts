import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '../shared/command-context.js';

export interface PollSecretSetResult {
  triggerId: string;
  /** When the secret was recorded (database clock); polls from then on send it. */
  setAt: string;
  /** Whether it replaced an earlier secret (a rotation). */
  replaced: boolean;
  position: number;
}

/** Sets a poll Trigger's bearer secret (`poll.auth`): sealed beside the log, the log records only that it was set. */
export class SetPollSecretCommand extends Command<PollSecretSetResult> {
  constructor(
    readonly context: CommandContext,
    readonly triggerId: string,
    readonly secret: string,
  ) {
    super();
  }
}
