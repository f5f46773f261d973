import { correlationAt, correlationKeyOf, MAX_CORRELATION_KEY_LENGTH } from './correlation.js';

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

  it('CA-2 given a value present at the pointer that cannot be a key, when read, then it is unusable (recorded unknown), not absent (a root)', () => {
    const long = 'k'.repeat(MAX_CORRELATION_KEY_LENGTH + 1);
    for (const id of ['', long, null, true, false, ['op'], { key: 'op' }, {}])
      expect(correlationAt('/id', { id })).toEqual({ kind: 'unusable' });
    expect(correlationAt('/id', {})).toEqual({ kind: 'absent' });
    expect(correlationAt('/meta/id', { meta: 'scalar' })).toEqual({ kind: 'absent' });
    expect(correlationAt(null, { id: 'op' })).toEqual({ kind: 'absent' });
    expect(correlationAt('/id', { id: 'op' })).toEqual({ kind: 'key', key: 'op' });
    expect(correlationAt('/id', { id: 12 })).toEqual({ kind: 'key', key: '12' });
  });
});
