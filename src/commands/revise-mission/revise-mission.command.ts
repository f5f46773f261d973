import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '../shared/command-context.js';

export interface MissionRevisionResult {
  missionId: string;
  revision: number;
  position: number;
}

/** Create or revise a Mission's state and grants (PUT /v1/missions/{missionId}); `body` is the raw PUT body. */
export class ReviseMissionCommand extends Command<MissionRevisionResult> {
  constructor(
    readonly context: CommandContext,
    readonly missionId: string,
    readonly body: Record<string, unknown>,
  ) {
    super();
  }
}
