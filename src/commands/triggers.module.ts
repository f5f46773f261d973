import { Module } from '@nestjs/common';
import { CapabilitiesController } from '../adapters/http/controllers/capabilities.controller.js';
import { DecisionWaiter } from '../adapters/http/controllers/decision-waiter.js';
import { TriggersController } from '../adapters/http/controllers/triggers.controller.js';
import { CAPABILITIES_TOKEN, CLAIMED_CAPABILITIES } from '../adapters/config/capabilities.js';
import { AdmissionProcessor } from './admit-occurrence/admission.processor.js';
import { AdmitOccurrenceHandler } from './admit-occurrence/admit-occurrence.handler.js';
import { AdmitOccurrencesHandler } from './admit-occurrence/admit-occurrences.handler.js';
import { DecisionNotifier } from './admit-occurrence/decision-notifier.js';
import { FireManualOccurrenceHandler } from './fire-manual-occurrence/fire-manual-occurrence.handler.js';
import { ReviseTriggerHandler } from './revise-trigger/revise-trigger.handler.js';
import { SetTriggerEnabledHandler } from './set-trigger-enabled/set-trigger-enabled.handler.js';

@Module({
  controllers: [TriggersController, CapabilitiesController],
  providers: [
    { provide: CAPABILITIES_TOKEN, useValue: CLAIMED_CAPABILITIES },
    DecisionWaiter,
    DecisionNotifier,
    ReviseTriggerHandler,
    SetTriggerEnabledHandler,
    FireManualOccurrenceHandler,
    AdmitOccurrenceHandler,
    AdmitOccurrencesHandler,
    AdmissionProcessor,
  ],
  exports: [AdmissionProcessor],
})
export class TriggersModule {}
