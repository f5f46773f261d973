import { correlationKeyOf, MAX_CORRELATION_KEY_LENGTH } from './correlation.js';

describe('CA-2 SU-1 correlation key at a source pointer', () => {
  it('reads a string or a finite number at the pointer', () => {
    expect(correlationKeyOf('/meta/ref', { meta: { ref: 'op-7' } })).toBe('op-7');
    expect(correlationKeyOf('/id', { id: 42 })).toBe('42');
  });

  it('is no key without a pointer, or when the value is missing, empty, not a scalar or not finite', () => {
    expect(correlationKeyOf(null, { id: 'x' })).toBeNull();
    expect(correlationKeyOf('/id', {})).toBeNull();
    expect(correlationKeyOf('/id', { id: '' })).toBeNull();
    expect(correlationKeyOf('/id', { id: null })).toBeNull();
    expect(correlationKeyOf('/id', { id: { nested: 'op' } })).toBeNull();
    expect(correlationKeyOf('/id', { id: ['op'] })).toBeNull();
    expect(correlationKeyOf('/id', { id: true })).toBeNull();
    expect(correlationKeyOf('not-a-pointer', { id: 'op' })).toBeNull();
  });

  it('refuses an over-long key rather than cutting it (a cut key could link to another Operation)', () => {
    expect(correlationKeyOf('/id', { id: 'k'.repeat(MAX_CORRELATION_KEY_LENGTH) })).toHaveLength(
      MAX_CORRELATION_KEY_LENGTH,
    );
    expect(correlationKeyOf('/id', { id: 'k'.repeat(MAX_CORRELATION_KEY_LENGTH + 1) })).toBeNull();
  });
});
