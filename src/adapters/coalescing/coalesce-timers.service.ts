import { Inject, Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { AdmitOccurrenceCommand } from '../../commands/admit-occurrence/admit-occurrence.command.js';
import { COALESCING_PROJECTION } from '../../projections/coalescing/coalescing.projection.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';
import type { ReveilleConfig } from '../config/config.js';
import { CONFIG } from '../config/config.token.js';
import { ProjectionRunners } from '../runner/projection-runners.js';
import { SubscriptionRegistry } from '../runner/subscription-registry.js';
import { CoalesceTimers } from './coalesce-timers.js';

/**
 * Runs where the background tasks run, next to the read model it polls; any number of processes may run one.
 * Closing is admission: the group's first member is admitted again, and admission of a held Occurrence closes
 * its group when the window has passed (src/domain/admission/coalescing.ts).
 */
@Injectable()
export class CoalesceTimersService {
  private readonly logger = new Logger('CoalesceTimers');
  readonly timers: CoalesceTimers;

  constructor(
    @Inject(SQL_CLIENT) sql: SqlClient,
    @Inject(CONFIG) config: ReveilleConfig,
    commands: CommandBus,
    runners: ProjectionRunners,
    registry: SubscriptionRegistry,
  ) {
    this.timers = new CoalesceTimers({
      sql,
      maxIdleMs: config.deliveryPollMs,
      close: async (group) => {
        const result = await commands.execute(new AdmitOccurrenceCommand(group.memberStream));
        return result.decision !== 'held' && result.decision !== 'already_decided';
      },
      onError: (error) => this.logger.error(`coalesce timers: ${(error as Error).message}`),
    });
    runners.get(COALESCING_PROJECTION).onFolded(() => this.timers.poke());
    registry.register(this.timers);
  }
}
