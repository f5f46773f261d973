export * from './occurrence-events.js';
export * from './occurrence.js';
export * from './observed-occurrence.js';
export * from './manual-input.js';
