import { Global, Module } from '@nestjs/common';
import { EXECUTION_WAKEUPS } from '../../commands/shared/tokens.js';
import { InProcessWakeups } from './in-process-wakeups.js';
import { WakeupDispatcher } from './wakeup.dispatcher.js';

/** Global, so a `claim-next` handler or controller in any module can wait on wakeups. */
@Global()
@Module({
  providers: [InProcessWakeups, { provide: EXECUTION_WAKEUPS, useExisting: InProcessWakeups }, WakeupDispatcher],
  exports: [InProcessWakeups, EXECUTION_WAKEUPS, WakeupDispatcher],
})
export class WakeupModule {}
