import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, POLL_SECRETS } from '../shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import type { PollSecrets } from '../../domain/ports/poll-secrets.js';
import { originOf, type PollSecretSet } from '../../domain/poll/poll-events.js';
import { pollDecider } from '../../domain/poll/poll.js';
import { CommandRejected, notFound } from '../../domain/shared/errors.js';
import { pollStream } from '../../domain/shared/ids.js';
import { reject } from '../../domain/shared/result.js';
import { type CommandContext, metadataOf } from '../shared/command-context.js';
import { currentTrigger } from '../shared/lookups.js';
import { findOwnWrite } from '../shared/own-write.js';
import { reportReplayedWrite } from '../shared/replayed-writes.js';
import { accepted, appendOf, write } from '../shared/write-kernel.js';
import { isPollTrigger, loadPollState } from './record-poll.js';
import { type PollSecretSetResult, SetPollSecretCommand } from './set-poll-secret.command.js';

/**
 * Decision 7: the sealed row is written first, under a new id, then `PollSecretSet` names that id (never the
 * secret). A crash in between leaves a row no event names; the poller keeps reading the row the last event names,
 * so a rotation takes effect with the next poll and never half-way. Any poll Trigger may hold one, so a secret can
 * be set before the revision whose `poll.auth` asks for it.
 */
@CommandHandler(SetPollSecretCommand)
export class SetPollSecretHandler implements ICommandHandler<SetPollSecretCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(POLL_SECRETS) private readonly secrets: PollSecrets,
  ) {}

  async execute({ context, triggerId, secret }: SetPollSecretCommand): Promise<PollSecretSetResult> {
    const { tenant } = context;
    const trigger = await currentTrigger(this.store, tenant, triggerId);
    if (trigger.status === 'absent' || trigger.deleted) throw notFound();
    if (!isPollTrigger(trigger))
      throw new CommandRejected(
        reject('trigger_not_poll', { detail: `Trigger ${triggerId} is a ${trigger.definition.type} Trigger.` }),
      );
    const replayed = await this.ownSet(context, triggerId);
    if (replayed) return replayed;
    const owner = { tenant, triggerId, secretId: randomUUID() };
    await this.secrets.put(owner, secret);
    const stream = pollStream(tenant, triggerId);
    const result = await write<PollSecretSetResult & { replacedId: string | null }>(this.store, async () => {
      const [now, loaded] = await Promise.all([this.store.now(), loadPollState(this.store, tenant, triggerId)]);
      const events = accepted(
        pollDecider.decide(
          {
            type: 'SetPollSecret',
            tenant,
            triggerId,
            life: trigger.createdRevision,
            at: now.toISOString(),
            secretId: owner.secretId,
            actor: context.actor,
            origin: originOf(trigger.definition.poll.url),
          },
          loaded.state,
        ),
      );
      const set = events[0] as PollSecretSet;
      return {
        appends: [appendOf(stream, events, metadataOf(context), loaded)],
        answer: ([position]) => ({
          ...answerOf(triggerId, set.data),
          replacedId: set.data.replaced,
          position: position ?? loaded.position,
        }),
      };
    });
    await this.secrets.prune(owner, result.replacedId);
    const { replacedId: _, ...answer } = result;
    return answer;
  }

  /**
   * A retry that took its key over from a run that died after committing answers from that run's event instead
   * of setting the secret a second time (decision 9). Only then is the poll stream read whole.
   */
  private async ownSet(context: CommandContext, triggerId: string): Promise<PollSecretSetResult | null> {
    if (!context.idempotency?.takenOver) return null;
    const own = findOwnWrite(await this.store.readStream(pollStream(context.tenant, triggerId)), context.idempotency);
    const set = own?.own.find((e) => e.type === 'PollSecretSet')?.data as PollSecretSet['data'] | undefined;
    if (!own || !set) return null;
    reportReplayedWrite();
    return { ...answerOf(triggerId, set), position: own.position };
  }
}

const answerOf = (triggerId: string, set: PollSecretSet['data']) => ({
  triggerId,
  setAt: set.at,
  replaced: set.replaced !== null,
});
