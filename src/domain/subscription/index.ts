export * from './subscription-events.js';
export * from './subscription-match.js';
export * from './wait-for.js';
export * from './match-in-order.js';
