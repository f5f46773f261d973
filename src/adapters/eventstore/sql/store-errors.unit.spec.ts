import { StoreUnavailable } from '../../../domain/shared/errors.js';
import { isConnectionFailure, translateStoreError } from './store-errors.js';

/** What reaches the client as 503 store_unavailable (retry later, nothing changed) rather than a 500. */
describe('connection failures become StoreUnavailable', () => {
  it.each([
    [
      'PostgreSQL refusing more clients (53300)',
      Object.assign(new Error('sorry, too many clients already'), { code: '53300' }),
    ],
    ['a pool whose connections are all busy past its wait', new Error('timeout exceeded when trying to connect')],
    ['a connect that timed out', new Error('Connection terminated due to connection timeout')],
    ['a refused socket', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['an administrator shutdown (57P01)', Object.assign(new Error('terminating connection'), { code: '57P01' })],
    ['a connection exception class 08', Object.assign(new Error('connection failure'), { code: '08006' })],
  ])('%s', (_, error) => {
    expect(isConnectionFailure(error)).toBe(true);
    expect(translateStoreError(error)).toBeInstanceOf(StoreUnavailable);
  });

  it.each([
    ['a unique violation', Object.assign(new Error('duplicate key value'), { code: '23505' })],
    ['a syntax error (a bug)', Object.assign(new Error('syntax error at or near'), { code: '42601' })],
    ['a plain error', new Error('something else')],
    ['not an error at all', 'timeout exceeded when trying to connect'],
  ])('but not %s', (_, error) => {
    expect(isConnectionFailure(error)).toBe(false);
    expect(translateStoreError(error)).toBe(error);
  });
});
