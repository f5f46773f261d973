export * from './occurrence-events.js';
export * from './occurrence.js';
