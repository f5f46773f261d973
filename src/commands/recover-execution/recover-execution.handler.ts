import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE } from '../shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { authorityStanding, type ReasonCode } from '../../domain/admission/index.js';
import { executionStatusOf, type KnownExecution } from '../../domain/execution/index.js';
import { IllegalStateError } from '../../domain/shared/errors.js';
import { metadataOf } from '../shared/command-context.js';
import { loadExecution, transitionExecution } from '../shared/execution-transition.js';
import { currentMission, currentTrigger } from '../shared/lookups.js';
import { RecoverExecutionCommand, type RecoveryResult } from './recover-execution.command.js';

@CommandHandler(RecoverExecutionCommand)
export class RecoverExecutionHandler implements ICommandHandler<RecoverExecutionCommand> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ context, executionId, reason, idempotencyKey }: RecoverExecutionCommand): Promise<RecoveryResult> {
    // The request is fixed at admission: read it first to know which Trigger and Mission to ask now.
    const { state: before } = await loadExecution(this.store, context.tenant, executionId);
    const refusal = await this.refusalNow(before.request);
    const at = (await this.store.now()).toISOString();
    const { state, position } = await transitionExecution(
      this.store,
      context.tenant,
      { type: 'RecoverExecution', executionId, actor: context.actor, reason, idempotencyKey, refusal, at },
      metadataOf(context, executionId),
    );
    const status = executionStatusOf(state);
    if (status !== 'pending') throw new IllegalStateError(`a recovery that left the execution ${status}`);
    return { executionId, generation: state.generation, status, position };
  }

  /** EX-4/AD-2: authority re-checked now, as an admission would: the reason it would block with, or null. */
  private async refusalNow(request: KnownExecution['request']): Promise<ReasonCode | null> {
    const [trigger, mission] = await Promise.all([
      currentTrigger(this.store, request.tenant, request.triggerId),
      currentMission(this.store, request.tenant, request.missionId),
    ]);
    const standing = authorityStanding(request, trigger, mission);
    return standing.stands ? null : standing.reason;
  }
}
