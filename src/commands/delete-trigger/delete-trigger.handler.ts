import { Inject, Logger } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, POLL_SECRETS } from '../shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import type { PollSecrets } from '../../domain/ports/poll-secrets.js';
import { CommandRejected, notFound } from '../../domain/shared/errors.js';
import { triggerStream } from '../../domain/shared/ids.js';
import { triggerDecider, type TriggerDeleted } from '../../domain/trigger/trigger.js';
import type { TriggerRevisionResult } from '../revise-trigger/revise-trigger.command.js';
import { handleCommand } from '../shared/write-kernel.js';
import { metadataOf } from '../shared/command-context.js';
import { DeleteTriggerCommand } from './delete-trigger.command.js';

const logger = new Logger('DeleteTrigger');

@CommandHandler(DeleteTriggerCommand)
export class DeleteTriggerHandler implements ICommandHandler<DeleteTriggerCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(POLL_SECRETS) private readonly pollSecrets: PollSecrets,
  ) {}

  async execute({ context, triggerId, body }: DeleteTriggerCommand): Promise<TriggerRevisionResult> {
    const handled = await handleCommand(
      this.store,
      triggerStream(context.tenant, triggerId),
      triggerDecider,
      {
        type: 'DeleteTrigger',
        tenant: context.tenant,
        triggerId,
        expectedRevision: body.expectedRevision,
        reason: body.reason ?? '',
        actor: context.actor,
        at: (await this.store.now()).toISOString(),
      },
      metadataOf(context),
    ).catch((error: unknown) => {
      throw error instanceof CommandRejected && error.rejection.code === 'trigger_not_found' ? notFound() : error;
    });
    // Deleted before this request (its own earlier run answers with its events): like the Trigger's reads, 404.
    if (handled.events.length === 0) throw notFound();
    // The deleted life's poll bearer secrets go with it (decision 7: they were never in the log); a Trigger created
    // again sets its own. After the commit: a deletion that failed leaves the Trigger polling with its secret. A
    // retry that took its key over answers with the committed event, so it forgets what was written until then.
    // The deletion is committed whatever happens here, so the answer is the deletion's: a secret that could not be
    // forgotten stays harmless (no later life names it: a Trigger created again starts with no secret, and its first
    // set's prune drops rows over a minute old; the next deletion forgets it too). It is logged for the operator.
    const deletion = handled.events.find((event): event is TriggerDeleted => event.type === 'TriggerDeleted');
    if (deletion)
      await this.pollSecrets
        .forget({ tenant: context.tenant, triggerId }, deletion.data.at)
        .catch((error: unknown) =>
          logger.warn(
            `Trigger ${triggerId} of tenant ${context.tenant} was deleted (position ${handled.position}), but its poll ` +
              `secrets were not removed: ${(error as Error).message}. No later life of the Trigger uses them; ` +
              `the Trigger's next secret set or deletion removes them.`,
          ),
        );
    return {
      triggerId,
      revision: handled.state.status === 'defined' ? handled.state.revision : 0,
      position: handled.position,
    };
  }
}
