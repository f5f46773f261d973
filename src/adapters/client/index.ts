/** `reveille/client`: a consumer of the executions API, apart from the service (it imports nothing of it). */
export { createWorker, type Worker } from './worker.js';
export { NonRetryableError } from './errors.js';
export { ApiError, type ExecutionClaim, type Settlement, type TokenSource } from './executions-api.js';
export type { ExecutionHandler, WorkerEvent, WorkerOptions } from './worker-options.js';
