import { Module } from '@nestjs/common';
import { CLOCK } from '../../commands/shared/tokens.js';
import { storeClock } from '../../commands/shared/store-clock.js';
import { EVENT_STORE } from '../../commands/shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { SchedulesController } from '../http/controllers/schedules.controller.js';
import { DecideHeldInstantsHandler } from '../scheduler/decide-held-instants.handler.js';
import { ScheduleMaterializerService } from '../scheduler/schedule-materializer.service.js';

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
