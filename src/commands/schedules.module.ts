import { Module } from '@nestjs/common';
import { CLOCK, storeClock } from '../adapters/clock/clock.js';
import { EVENT_STORE, type EventStore } from '../adapters/eventstore/event-store.port.js';
import { SchedulesController } from '../adapters/http/controllers/schedules.controller.js';
import { DecideHeldInstantsHandler } from './decide-held-instants/decide-held-instants.handler.js';
import { ScheduleMaterializerService } from './materialize-schedule/schedule-materializer.service.js';

/** Schedules (SC-1..SC-8): the materializer loop, held-range decisions and previews. */
@Module({
  controllers: [SchedulesController],
  providers: [
    // SC-6: the database is the clock; nothing here reads the host's.
    { provide: CLOCK, useFactory: (store: EventStore) => storeClock(store), inject: [EVENT_STORE] },
    ScheduleMaterializerService,
    DecideHeldInstantsHandler,
  ],
  exports: [ScheduleMaterializerService],
})
export class SchedulesModule {}
