export * from './delivery-policy.js';
export * from './execution-events.js';
export * from './execution-state.js';
export * from './evolve-execution.js';
export * from './execution.js';
export * from './execution-settlement.js';
export * from './execution-effects.js';
