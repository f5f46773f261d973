export * from './dedupe-identity.js';
export * from './dedupe-window.js';
