import { SealingKey, SecretUnavailable } from './sealing-key.js';

describe('decision 7 sealing secrets beside the log', () => {
  const DEPLOYMENT_KEY = 'a long random deployment key, 32+ bytes of it';
  const owner = ['poll', 'acme', 't-1', 's-1'];

  it('a row sealed for one purpose or owner never opens for another', () => {
    const polls = new SealingKey(DEPLOYMENT_KEY, 'reveille/poll-secrets');
    const sources = new SealingKey(DEPLOYMENT_KEY, 'reveille/source-secrets');
    const sealed = polls.seal(owner, 'tok.en');
    expect(sealed).toMatch(/^enc:v1:/);
    expect(sealed).not.toContain('tok.en');
    expect(polls.open(owner, sealed, 'the poll secret')).toBe('tok.en');
    expect(() => sources.open(owner, sealed, 'x')).toThrow(SecretUnavailable);
    expect(() => polls.open(['poll', 'acme', 't-2', 's-1'], sealed, 'x')).toThrow(SecretUnavailable);
    expect(() => new SealingKey(null, 'reveille/poll-secrets').open(owner, sealed, 'x')).toThrow(
      'x is encrypted and REVEILLE_SECRET_KEY is not set',
    );
  });
});
