import { Command } from '@nestjs/cqrs';
import type { InstantRange } from '../../domain/schedule/schedule-events.js';
import type { CommandContext } from '../shared/command-context.js';

export interface HeldDecisionResult {
  triggerId: string;
  action: 'release' | 'dismiss';
  released: string[];
  dismissed: InstantRange[];
  held: InstantRange[];
  position: number;
}

/** SC-5 operator decision on a held catch-up range: release (fire, at most `bound`) or dismiss (skip). */
export class DecideHeldInstantsCommand extends Command<HeldDecisionResult> {
  constructor(
    readonly context: CommandContext,
    readonly triggerId: string,
    readonly action: 'release' | 'dismiss',
    readonly reason: string,
  ) {
    super();
  }
}
