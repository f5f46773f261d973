import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, SOURCE_SECRETS } from '../shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import type { SourceSecrets } from '../../domain/ports/source-secrets.js';
import { sourceStream } from '../../domain/shared/ids.js';
import { sourceDecider } from '../../domain/source/source.js';
import { handleCommand } from '../shared/write-kernel.js';
import { metadataOf } from '../shared/command-context.js';
import { RetireSourceKeyCommand, type SourceKeyRetirement } from './retire-source-key.command.js';

/**
 * The event first, then the secret row goes: a crash between leaves the row of a retired key, which
 * no lookup returns (only active keys are read) and the next retirement of it deletes.
 */
@CommandHandler(RetireSourceKeyCommand)
export class RetireSourceKeyHandler implements ICommandHandler<RetireSourceKeyCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SOURCE_SECRETS) private readonly secrets: SourceSecrets,
  ) {}

  async execute({ context, sourceId, keyId }: RetireSourceKeyCommand): Promise<SourceKeyRetirement> {
    const at = (await this.store.now()).toISOString();
    const handled = await handleCommand(
      this.store,
      sourceStream(context.tenant, sourceId),
      sourceDecider,
      { type: 'RetireSourceKey', tenant: context.tenant, sourceId, keyId, actor: context.actor, at },
      metadataOf(context),
    );
    await this.secrets.remove({ tenant: context.tenant, sourceId, keyId });
    const key = handled.state.status === 'defined' ? handled.state.keys.find((k) => k.keyId === keyId) : undefined;
    return { sourceId, keyId, generation: key?.generation ?? 0, retired: true, position: handled.position };
  }
}
