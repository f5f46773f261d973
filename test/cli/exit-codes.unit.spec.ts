import { LogHeldBackError } from '../../src/commands/audit/verify-log.js';
import { UsageError } from '../../src/adapters/cli/args.js';
import { exitCodeFor } from '../../src/adapters/cli/exit-codes.js';

describe('the CLI exit code of an error a user can act on', () => {
  it('AU-2 an audit verify that stopped at a log held back by an open transaction exits 2 (not verified), never 1 (violations)', () => {
    expect(exitCodeFor(new LogHeldBackError(120, 80, 30_000))).toBe(2);
  });

  it('AU-2 a store that could not be checked exits 2 like a usage error', () => {
    expect(exitCodeFor(Object.assign(new Error('could not verify'), { name: 'NotVerified' }))).toBe(2);
    expect(exitCodeFor(new UsageError('--from needs a store position'))).toBe(2);
  });

  it('a refused command and a port in use exit 1', () => {
    expect(exitCodeFor(Object.assign(new Error('served'), { name: 'StoreServed' }))).toBe(1);
    expect(exitCodeFor(Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' }))).toBe(1);
  });

  it('anything else is a bug and keeps its stack (no exit code)', () => {
    expect(exitCodeFor(new TypeError('x is undefined'))).toBeUndefined();
    expect(exitCodeFor(null)).toBeUndefined();
  });
});
