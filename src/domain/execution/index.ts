export * from './execution.js';
