import { Inject, Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { AppendSignal } from '../../projections/runner/append-signal.js';
import {
  advanceCheckpoint,
  advanceCheckpointSoon,
  CheckpointConflict,
  loadCheckpoint,
} from '../../projections/runner/checkpoints.js';
import { EVENT_STORE } from '../../commands/shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';
import { Subscription } from '../../projections/runner/subscription.js';
import { SubscriptionRegistry } from '../runner/subscription-registry.js';
import { AdmitOccurrencesCommand } from '../../commands/admit-occurrence/admit-occurrences.command.js';
import { DecisionNotifier } from '../../commands/admit-occurrence/decision-notifier.js';
import type { ReveilleConfig } from '../config/config.js';
import { CONFIG } from '../config/config.token.js';

const NAME = 'processor:admission';

/** AD-1: several processes may run it; the decision append at the stream's revision lets one win. */
@Injectable()
export class AdmissionProcessor {
  private readonly logger = new Logger('Admission');
  readonly subscription: Subscription;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(SQL_CLIENT) sql: SqlClient,
    signal: AppendSignal,
    registry: SubscriptionRegistry,
    private readonly commands: CommandBus,
    @Inject(CONFIG) config: ReveilleConfig,
    decisions: DecisionNotifier,
  ) {
    // OP-4: the operator views hold every decision; the log has them only when asked for (debug).
    decisions.onDecided((decision) => this.logger.debug({ msg: 'decided', ...decision }));
    this.subscription = new Subscription({
      name: NAME,
      store,
      signal,
      idlePollMs: 100,
      batchSize: 200,
      lingerMs: config.lingerMs.admission,
      checkpoint: () => loadCheckpoint(sql, NAME),
      types: ['OccurrenceObserved'],
      handle: async (events, from, to) => {
        // One read and one write for the page; the handler falls back to each Mission, then each Occurrence.
        if (events.length > 0) await this.commands.execute(new AdmitOccurrencesCommand(events));
        // Decisions are idempotent, so losing the checkpoint race to another processor only means reading it again.
        const advance = events.length > 0 ? advanceCheckpoint : advanceCheckpointSoon;
        if (!(await advance(sql.unflushed ?? sql, NAME, from, to))) throw new CheckpointConflict(NAME);
      },
      onError: (error) => {
        if (!(error instanceof CheckpointConflict)) this.logger.error(`admission: ${(error as Error).message}`);
      },
    });
    registry.register(this.subscription);
  }
}
