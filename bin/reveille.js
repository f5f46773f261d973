#!/usr/bin/env node
// Builds on first use (a fresh `npm ci` has no dist/), then hands over to the compiled CLI.
import { ensureBuilt } from '../scripts/build-if-needed.js';

try {
  ensureBuilt();
} catch (error) {
  process.stderr.write(`reveille: ${error.message}\n`);
  process.exit(1);
}
await import('../dist/src/main.js');
