import { Module } from '@nestjs/common';
import { CapabilitiesController } from '../http/controllers/capabilities.controller.js';
import { DecisionWaiter } from '../http/controllers/decision-waiter.js';
import { TriggersController } from '../http/controllers/triggers.controller.js';
import { CAPABILITIES_TOKEN } from '../../commands/shared/tokens.js';
import { CONFIG } from '../config/config.token.js';
import type { ReveilleConfig } from '../config/config.js';
import { AdmissionProcessor } from '../admission/admission.processor.js';
import { CoalesceTimersService } from '../coalescing/coalesce-timers.service.js';
import { AdmitOccurrenceHandler } from '../../commands/admit-occurrence/admit-occurrence.handler.js';
import { AdmitOccurrencesHandler } from '../../commands/admit-occurrence/admit-occurrences.handler.js';
import { DecisionNotifier } from '../../commands/admit-occurrence/decision-notifier.js';
import { FireManualOccurrenceHandler } from '../../commands/fire-manual-occurrence/fire-manual-occurrence.handler.js';
import { ReviseTriggerHandler } from '../../commands/revise-trigger/revise-trigger.handler.js';
import { BatchCloserService } from '../batches/batch-closer.service.js';
import { DeleteTriggerHandler } from '../../commands/delete-trigger/delete-trigger.handler.js';
import { SetTriggerEnabledHandler } from '../../commands/set-trigger-enabled/set-trigger-enabled.handler.js';
import { PollsModule } from './polls.module.js';

@Module({
  imports: [PollsModule],
  controllers: [TriggersController, CapabilitiesController],
  providers: [
    {
      provide: CAPABILITIES_TOKEN,
      useFactory: (config: ReveilleConfig) => config.claimedCapabilities,
      inject: [CONFIG],
    },
    DecisionWaiter,
    DecisionNotifier,
    ReviseTriggerHandler,
    SetTriggerEnabledHandler,
    DeleteTriggerHandler,
    FireManualOccurrenceHandler,
    AdmitOccurrenceHandler,
    AdmitOccurrencesHandler,
    AdmissionProcessor,
    // BA-1: closes due batches, the other half of admission for a batching Trigger.
    BatchCloserService,
    // DD-5: closes coalescing windows by the database clock.
    CoalesceTimersService,
  ],
  exports: [AdmissionProcessor],
})
export class TriggersModule {}
