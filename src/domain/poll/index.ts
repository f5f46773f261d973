export * from './poll-events.js';
export * from './poll-page.js';
export * from './poll.js';
