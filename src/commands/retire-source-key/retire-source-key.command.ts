import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '../shared/command-context.js';

export interface SourceKeyRetirement {
  sourceId: string;
  keyId: string;
  generation: number;
  retired: true;
  position: number;
}

/** Retire a key at once (DELETE /v1/sources/{sourceId}/keys/{keyId}); retiring it again changes nothing. */
export class RetireSourceKeyCommand extends Command<SourceKeyRetirement> {
  constructor(
    readonly context: CommandContext,
    readonly sourceId: string,
    readonly keyId: string,
  ) {
    super();
  }
}
