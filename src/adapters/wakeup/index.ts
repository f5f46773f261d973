export { InProcessWakeups } from './in-process-wakeups.js';
export { WakeupDispatcher, WAKEUP_DISPATCHER, type WakeupTransportHealth } from './wakeup.dispatcher.js';
export { WakeupModule } from './wakeup.module.js';
export type { ExecutionWakeups } from '../../domain/ports/execution-wakeups.js';
export type { Wakeup } from '../../domain/execution/wakeup.js';
