import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, INGRESS_ROUTES } from '../shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import type { IngressRouteClaims } from '../../domain/ports/ingress-routes.js';
import { sourceStream } from '../../domain/shared/ids.js';
import { reject } from '../../domain/shared/result.js';
import { sourceDecider, type ReviseSource } from '../../domain/source/source.js';
import { loadAggregate } from '../shared/aggregate.js';
import { accepted, handleCommand } from '../shared/write-kernel.js';
import { metadataOf } from '../shared/command-context.js';
import { CommandRejected } from '../../domain/shared/errors.js';
import { ReviseSourceCommand, type SourceRevisionResult } from './revise-source.command.js';

@CommandHandler(ReviseSourceCommand)
export class ReviseSourceHandler implements ICommandHandler<ReviseSourceCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(INGRESS_ROUTES) private readonly routes: IngressRouteClaims,
  ) {}

  async execute({ context, sourceId, body }: ReviseSourceCommand): Promise<SourceRevisionResult> {
    const { expectedRevision, reason, ...definition } = body;
    const command: ReviseSource = {
      type: 'ReviseSource',
      tenant: context.tenant,
      sourceId,
      expectedRevision: expectedRevision as number | undefined,
      definition,
      reason: typeof reason === 'string' ? reason : '',
      actor: context.actor,
      at: (await this.store.now()).toISOString(),
    };
    const stream = sourceStream(context.tenant, sourceId);
    const loaded = await loadAggregate(this.store, stream, sourceDecider);
    if (loaded.state.status === 'absent') {
      // Decide first so an invalid or conflicting request claims nothing; then claim the global route.
      accepted(sourceDecider.decide(command, loaded.state));
      if (!(await this.routes.claim(sourceId, context.tenant))) {
        throw new CommandRejected(
          reject('source_id_unavailable', {
            detail: 'This source id is taken; ingress URLs are global, so choose another.',
          }),
        );
      }
    }
    const handled = await handleCommand(this.store, stream, sourceDecider, command, metadataOf(context));
    return {
      sourceId,
      revision: handled.state.status === 'defined' ? handled.state.revision : 0,
      position: handled.position,
    };
  }
}
