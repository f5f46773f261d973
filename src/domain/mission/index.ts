export * from './mission-grants.js';
export * from './mission.js';
