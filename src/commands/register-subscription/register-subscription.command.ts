import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '../shared/command-context.js';
import type { RegisterSubscriptionDto } from './register-subscription.dto.js';

export interface RegisteredSubscription {
  subscriptionId: string;
  state: 'active';
  deadline: string;
  position: number;
}

/** SU-1: the claim holder registers a wait-for subscription with its fence. */
export class RegisterSubscriptionCommand extends Command<RegisteredSubscription> {
  constructor(
    readonly context: CommandContext,
    readonly executionId: string,
    readonly body: RegisterSubscriptionDto,
  ) {
    super();
  }
}
