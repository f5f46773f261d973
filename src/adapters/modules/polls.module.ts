import { Module } from '@nestjs/common';
import { SetPollCursorHandler } from '../../commands/poll/set-poll-cursor.handler.js';
import { SetPollSecretHandler } from '../../commands/poll/set-poll-secret.handler.js';
import { POLL_SECRETS } from '../../commands/shared/tokens.js';
import { PollSecretController } from '../http/controllers/poll-secret.controller.js';
import { PollsController } from '../http/controllers/polls.controller.js';
import { PollLoopService } from '../poll/poll-loop.service.js';
import { PollSecretStore } from '../poll/poll-secret-store.js';

/** Poll Triggers (PO-1..PO-4): the poll loop, its bearer secrets, the operator's poll view and cursor override. */
@Module({
  controllers: [PollsController, PollSecretController],
  providers: [
    PollLoopService,
    SetPollCursorHandler,
    SetPollSecretHandler,
    PollSecretStore,
    { provide: POLL_SECRETS, useExisting: PollSecretStore },
  ],
  // POLL_SECRETS: deleting a Trigger (TriggersModule) drops its poll secrets
  exports: [PollLoopService, POLL_SECRETS],
})
export class PollsModule {}
