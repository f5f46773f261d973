import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '../shared/command-context.js';

export interface SourceKeyCreated {
  sourceId: string;
  keyId: string;
  generation: number;
  /** Shown in this response only (WH-3); the idempotency store keeps it as null, and a replay answers null. */
  secret: string | null;
  position: number;
}

/** Add a key generation (POST /v1/sources/{sourceId}/keys); the secret is generated when absent. */
export class AddSourceKeyCommand extends Command<SourceKeyCreated> {
  constructor(
    readonly context: CommandContext,
    readonly sourceId: string,
    readonly keyId: string | undefined,
    readonly secret: string | undefined,
  ) {
    super();
  }
}
