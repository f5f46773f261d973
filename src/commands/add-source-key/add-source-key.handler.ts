import { randomBytes } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, SOURCE_SECRETS } from '../shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import type { SourceSecrets } from '../../domain/ports/source-secrets.js';
import { generateSecret, GENERATED_SECRET_BYTES, parseSecret } from '../../domain/source/source-secret.js';
import { sourceStream } from '../../domain/shared/ids.js';
import { reject } from '../../domain/shared/result.js';
import { sourceDecider, type AddSourceKey, type SourceKeyAdded } from '../../domain/source/source.js';
import { loadAggregate } from '../shared/aggregate.js';
import { accepted, appendOf, write } from '../shared/write-kernel.js';
import { metadataOf, type RequestIdentity } from '../shared/command-context.js';
import { findOwnWrite } from '../shared/own-write.js';
import { reportReplayedWrite } from '../shared/replayed-writes.js';
import { CommandRejected } from '../../domain/shared/errors.js';
import { AddSourceKeyCommand, type SourceKeyCreated } from './add-source-key.command.js';

const MAX_ATTEMPTS = 10;

/**
 * The secret row is written before SourceKeyAdded (decision 7, docs/architecture.md): a crash in
 * between leaves a row no event names, never an event without its secret. A concurrent key addition
 * moves the generation, so the row is rewritten before each append.
 */
@CommandHandler(AddSourceKeyCommand)
export class AddSourceKeyHandler implements ICommandHandler<AddSourceKeyCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SOURCE_SECRETS) private readonly secrets: SourceSecrets,
  ) {}

  async execute({
    context,
    sourceId,
    keyId: givenKeyId,
    secret: givenSecret,
  }: AddSourceKeyCommand): Promise<SourceKeyCreated> {
    const keyId = givenKeyId ?? `key-${randomBytes(8).toString('hex')}`;
    const owner = { tenant: context.tenant, sourceId, keyId };
    const stream = sourceStream(context.tenant, sourceId);
    const command: AddSourceKey = {
      type: 'AddSourceKey',
      tenant: context.tenant,
      sourceId,
      keyId,
      actor: context.actor,
      at: (await this.store.now()).toISOString(),
    };
    let material: { secret: string; sealed: string } | null = null;
    return write<SourceKeyCreated>(
      this.store,
      async () => {
        const replayed = context.idempotency && (await this.ownKey(stream, context.idempotency));
        if (replayed) return { appends: [], answer: () => ({ sourceId, ...replayed }) };
        const loaded = await loadAggregate(this.store, stream, sourceDecider);
        const added = accepted(sourceDecider.decide(command, loaded.state))[0] as SourceKeyAdded | undefined;
        if (!added || loaded.state.status !== 'defined') throw new Error('AddSourceKey decided no key');
        material ??= this.material(loaded.state.definition.scheme, givenSecret, owner);
        if (!(await this.secrets.put(owner, added.data.generation, material.sealed))) {
          throw new CommandRejected(
            reject('key_in_flight', { detail: `key "${keyId}" is being added by another request; retry in a minute` }),
          );
        }
        const { secret } = material;
        return {
          appends: [appendOf(stream, [added], metadataOf(context), loaded)],
          answer: ([position]) => ({ sourceId, keyId, generation: added.data.generation, secret, position: position! }),
        };
      },
      { maxAttempts: MAX_ATTEMPTS },
    );
  }

  /**
   * The key this request already added, when a run of it committed before its answer was stored: that key,
   * never a second one under a new random id (decision 9). Its secret was shown to nobody and stays sealed.
   */
  private async ownKey(stream: string, request: RequestIdentity) {
    const own = findOwnWrite(await this.store.readStream(stream), request);
    const added = own?.own.find((e) => e.type === 'SourceKeyAdded')?.data as SourceKeyAdded['data'] | undefined;
    if (!own || !added) return null;
    reportReplayedWrite();
    return { keyId: added.keyId, generation: added.generation, secret: null, position: own.position };
  }

  /** A given secret is checked against the scheme (422 at /secret, never echoed); else one is generated. */
  private material(
    scheme: Parameters<typeof parseSecret>[0],
    given: string | undefined,
    owner: { tenant: string; sourceId: string; keyId: string },
  ) {
    const secret = given ?? generateSecret(scheme, randomBytes(GENERATED_SECRET_BYTES));
    if (given !== undefined) {
      const parsed = parseSecret(scheme, given);
      if (!parsed.ok)
        throw new CommandRejected(
          reject('invalid_definition', { errors: [{ pointer: '/secret', message: parsed.detail }] }),
        );
    }
    return { secret, sealed: this.secrets.cipher.seal(owner, secret) };
  }
}
