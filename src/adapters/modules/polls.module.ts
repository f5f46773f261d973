import { Module } from '@nestjs/common';
import { SetPollCursorHandler } from '../../commands/poll/set-poll-cursor.handler.js';
import { PollsController } from '../http/controllers/polls.controller.js';
import { PollLoopService } from '../poll/poll-loop.service.js';

/** Poll Triggers (PO-1..PO-4): the poll loop, the operator's poll view and cursor override. */
@Module({
  controllers: [PollsController],
  providers: [PollLoopService, SetPollCursorHandler],
  exports: [PollLoopService],
})
export class PollsModule {}
