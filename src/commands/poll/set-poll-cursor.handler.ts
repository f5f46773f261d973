import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE } from '../shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { pollStateFor } from '../../domain/poll/poll-events.js';
import { cursorFor, pollDecider } from '../../domain/poll/poll.js';
import { CommandRejected, notFound } from '../../domain/shared/errors.js';
import { pollStream } from '../../domain/shared/ids.js';
import { reject } from '../../domain/shared/result.js';
import { metadataOf } from '../shared/command-context.js';
import { currentTrigger } from '../shared/lookups.js';
import { accepted, appendOf, write } from '../shared/write-kernel.js';
import { isPollTrigger, loadPollState } from './record-poll.js';
import { type PollCursorResult, SetPollCursorCommand } from './set-poll-cursor.command.js';

/**
 * Appended at the revision read, so it serializes with the poller: a fetch based on the old cursor that commits
 * after this records nothing, and one that committed before is simply history (the cursor applies to later polls).
 */
@CommandHandler(SetPollCursorCommand)
export class SetPollCursorHandler implements ICommandHandler<SetPollCursorCommand> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({
    context,
    triggerId,
    cursor,
    reason,
    idempotencyKey,
  }: SetPollCursorCommand): Promise<PollCursorResult> {
    const trigger = await currentTrigger(this.store, context.tenant, triggerId);
    if (trigger.status === 'absent' || trigger.deleted) throw notFound();
    if (!isPollTrigger(trigger))
      throw new CommandRejected(
        reject('trigger_not_poll', { detail: `Trigger ${triggerId} is a ${trigger.definition.type} Trigger.` }),
      );
    const stream = pollStream(context.tenant, triggerId);
    return write(this.store, async () => {
      const [now, loaded] = await Promise.all([this.store.now(), loadPollState(this.store, context.tenant, triggerId)]);
      const command = {
        type: 'SetPollCursor' as const,
        tenant: context.tenant,
        triggerId,
        life: trigger.createdRevision,
        at: now.toISOString(),
        url: trigger.definition.poll.url,
        cursor,
        reason,
        actor: context.actor,
      };
      const events = accepted(pollDecider.decide(command, loaded.state));
      // what this life of the Trigger had: an earlier life's cursor or hold is neither previous nor released
      const current = pollStateFor(loaded.state, trigger.createdRevision);
      const metadata = { ...metadataOf(context), idempotencyKey };
      return {
        appends: [appendOf(stream, events, metadata, loaded)],
        answer: ([position]) => ({
          triggerId,
          cursor,
          previous: cursorFor(current, trigger.definition.poll.url),
          released: current.held,
          position: position ?? loaded.position,
        }),
      };
    });
  }
}
