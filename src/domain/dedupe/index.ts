export * from './dedupe-identity.js';
