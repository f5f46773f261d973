import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventStore, RecordedEvent } from '../../domain/ports/event-store.js';
import { badRequest, notFound } from '../../domain/shared/errors.js';
import { waitForStream } from '../../domain/shared/ids.js';
import {
  type ClaimFacts,
  type SubscriptionEvent,
  type SubscriptionMatch,
  type SubscriptionTarget,
  instantOf,
  validateMatch,
  waitForDecider,
  type WaitForState,
} from '../../domain/subscription/index.js';
import type { FieldError } from '../../domain/shared/result.js';
import { asDomainEvent } from '../shared/aggregate.js';
import { type CommandContext, metadataOf, requestOf } from '../shared/command-context.js';
import { loadExecution } from '../shared/execution-transition.js';
import { currentSource, currentTrigger } from '../shared/lookups.js';
import { findOwnWrite } from '../shared/own-write.js';
import { reportReplayedWrite } from '../shared/replayed-writes.js';
import { EVENT_STORE } from '../shared/tokens.js';
import { TrustedClock } from '../shared/trusted-clock.js';
import { accepted, appendOf, write } from '../shared/write-kernel.js';
import { RegisterSubscriptionCommand, type RegisteredSubscription } from './register-subscription.command.js';
import type { RegisterSubscriptionDto } from './register-subscription.dto.js';

/**
 * SU-1: the registration goes on the target's `waitfor-…` stream at the revision read, where admission appends
 * its matches and the timers their deadlines, so the three serialize. The fence is compared with the execution
 * as read (another tenant's execution does not exist for the caller).
 */
@CommandHandler(RegisterSubscriptionCommand)
export class RegisterSubscriptionHandler implements ICommandHandler<RegisterSubscriptionCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(TrustedClock) private readonly clock: TrustedClock,
  ) {}

  async execute({ context, executionId, body }: RegisterSubscriptionCommand): Promise<RegisteredSubscription> {
    const { target, match } = validated(body);
    const execution = (await loadExecution(this.store, context.tenant, executionId)).state;
    await this.checkTarget(context.tenant, target, match);
    const { request } = execution;
    const claim: ClaimFacts = {
      status: execution.status,
      fence: execution.fence,
      execution: {
        executionId,
        generation: execution.generation,
        attempt: execution.attempt,
        missionId: request.missionId,
        triggerId: request.triggerId,
        lane: request.lane,
      },
    };
    const streamId = waitForStream(context.tenant, target.kind, target.id);
    const metadata = metadataOf(context, executionId);
    const retried = requestOf(metadata);
    return write(this.store, async () => {
      const recorded = await this.store.readStream(streamId);
      const own = retried ? findOwnWrite(recorded, retried) : null;
      if (own) {
        // This request already registered it (its answer was lost): the same answer, no second registration
        reportReplayedWrite();
        return { appends: [], answer: () => answerOf(body, own.position) };
      }
      const state = fold(recorded);
      const now = (await this.clock.now()).toISOString();
      const events = accepted(
        waitForDecider.decide(
          {
            type: 'RegisterSubscription',
            tenant: context.tenant,
            subscriptionId: body.subscriptionId,
            target,
            match,
            deadline: body.deadline,
            fence: body.fence,
            claim,
            now,
          },
          state,
        ),
      );
      const revision = recorded[recorded.length - 1]?.revision ?? -1;
      const position = recorded[recorded.length - 1]?.position ?? 0;
      return {
        appends: events.length === 0 ? [] : [appendOf(streamId, events, metadata, { revision })],
        answer: ([appended]) => answerOf(body, appended ?? position),
      };
    });
  }

  /** The target must exist for the tenant and be able to deliver what the match asks for. */
  private async checkTarget(tenant: string, target: SubscriptionTarget, match: SubscriptionMatch): Promise<void> {
    const wantsKey = match.correlationKey !== undefined;
    const noPointer = (pointer: string): FieldError => ({
      pointer,
      message: 'a correlationKey needs a webhook source with a correlationPointer',
    });
    if (target.kind === 'trigger') {
      const trigger = await currentTrigger(this.store, tenant, target.id);
      if (trigger.status !== 'defined' || trigger.deleted) throw notFound('No such Trigger.');
      const { type, source } = trigger.definition;
      if (type !== 'webhook' && type !== 'poll')
        throw badRequest('Only webhook and poll Triggers accept events to wait for.', [
          { pointer: '/triggerId', message: 'triggerId must name a webhook or poll Trigger' },
        ]);
      if (!wantsKey) return;
      const bound = type === 'webhook' && source ? await currentSource(this.store, tenant, source.sourceId) : null;
      if (bound?.status !== 'defined' || !bound.definition.correlationPointer)
        throw badRequest('The Trigger delivers no correlation key.', [noPointer('/match/correlationKey')]);
      return;
    }
    const source = await currentSource(this.store, tenant, target.id);
    if (source.status !== 'defined') throw notFound('No such source.');
    if (wantsKey && !source.definition.correlationPointer)
      throw badRequest('The source delivers no correlation key.', [noPointer('/match/correlationKey')]);
  }
}

function validated(body: RegisterSubscriptionDto): { target: SubscriptionTarget; match: SubscriptionMatch } {
  const errors: FieldError[] = [];
  // `@IsOptional` lets null through: a null target is a wrong field type (400), never an id to look up (404).
  for (const name of ['triggerId', 'sourceId'] as const)
    if (body[name] === null) errors.push({ pointer: `/${name}`, message: `${name} must be a string` });
  const hasTrigger = body.triggerId !== undefined && body.triggerId !== null;
  const hasSource = body.sourceId !== undefined && body.sourceId !== null;
  if (errors.length === 0 && hasTrigger === hasSource)
    errors.push({ pointer: '/triggerId', message: 'exactly one of triggerId and sourceId is required' });
  const { match, errors: matchErrors } = validateMatch(body.match);
  errors.push(...matchErrors);
  if (errors.length > 0) throw badRequest('The request is malformed.', errors);
  const target: SubscriptionTarget = hasTrigger
    ? { kind: 'trigger', id: body.triggerId! }
    : { kind: 'source', id: body.sourceId! };
  return { target, match };
}

function fold(recorded: readonly RecordedEvent[]): WaitForState {
  return recorded.reduce(
    (state, e) => waitForDecider.evolve(state, asDomainEvent<SubscriptionEvent>(e)),
    waitForDecider.initialState,
  );
}

const answerOf = (body: RegisterSubscriptionDto, position: number): RegisteredSubscription => ({
  subscriptionId: body.subscriptionId,
  state: 'active',
  // As recorded: UTC with milliseconds (api.md's Conventions), whatever precision the request used.
  deadline: instantOf(body.deadline) ?? body.deadline,
  position,
});
