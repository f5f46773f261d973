import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '../shared/command-context.js';

export interface SourceRevisionResult {
  sourceId: string;
  revision: number;
  position: number;
}

/** Create or revise a source's definition (PUT /v1/sources/{sourceId}); definition members sit at the body root. */
export class ReviseSourceCommand extends Command<SourceRevisionResult> {
  constructor(
    readonly context: CommandContext,
    readonly sourceId: string,
    readonly body: { expectedRevision?: unknown; reason?: unknown; [member: string]: unknown },
  ) {
    super();
  }
}
