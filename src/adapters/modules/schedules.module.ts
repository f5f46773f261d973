import { Module } from '@nestjs/common';
import { CLOCK, DUE_SCHEDULES, EVENT_STORE } from '../../commands/shared/tokens.js';
import { storeClock } from '../../commands/shared/store-clock.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { DecideHeldInstantsHandler } from '../../commands/scheduler/decide-held-instants.handler.js';
import { SchedulesController } from '../http/controllers/schedules.controller.js';
import { ScheduleMaterializerService } from '../scheduler/schedule-materializer.service.js';

/** Schedules (SC-1..SC-8): the materializer loop, held-range decisions and previews. */
@Module({
  controllers: [SchedulesController],
  providers: [
    // SC-6: the database is the clock; nothing here reads the host's.
    { provide: CLOCK, useFactory: (store: EventStore) => storeClock(store), inject: [EVENT_STORE] },
    ScheduleMaterializerService,
    {
      provide: DUE_SCHEDULES,
      useFactory: (scheduler: ScheduleMaterializerService) => scheduler.materializer.dueSchedules,
      inject: [ScheduleMaterializerService],
    },
    DecideHeldInstantsHandler,
  ],
  exports: [ScheduleMaterializerService],
})
export class SchedulesModule {}
