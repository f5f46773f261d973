import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type EventStore } from '../../domain/ports/event-store.js';
import { CommandRejected } from '../../domain/shared/errors.js';
import type { ClaimResult } from '../claim-execution/claim-execution.command.js';
import { claimExecution } from '../claim-execution/claim-execution.handler.js';
import { EVENT_STORE } from '../shared/tokens.js';
import { ClaimNextExecutionCommand } from './claim-next-execution.command.js';

/**
 * What a stale candidate answers: another consumer won it, it ended, or its Mission is at maxConcurrent.
 * The read model trails the log, so these are expected, and the next candidate is tried.
 */
const MOVE_ON = new Set(['already_claimed', 'execution_completed', 'execution_noncommitted', 'not_found']);

@CommandHandler(ClaimNextExecutionCommand)
export class ClaimNextExecutionHandler implements ICommandHandler<ClaimNextExecutionCommand> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ context, consumerId, candidates }: ClaimNextExecutionCommand): Promise<ClaimResult | null> {
    const fullMissions = new Set<string>();
    for (const { executionId, missionId } of candidates) {
      if (fullMissions.has(missionId)) continue;
      try {
        return await claimExecution(this.store, context, executionId, consumerId);
      } catch (error) {
        if (!(error instanceof CommandRejected)) throw error;
        const { code } = error.rejection;
        if (code === 'concurrency_limit') fullMissions.add(missionId);
        else if (!MOVE_ON.has(code)) throw error;
      }
    }
    return null;
  }
}
