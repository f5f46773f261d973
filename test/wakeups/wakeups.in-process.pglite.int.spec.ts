import { inProcessWakeupsSuite } from './wakeups.in-process.shared.js';

inProcessWakeupsSuite('pglite');
