import { chainHash, eventContent } from '../../../domain/shared/event-hash.js';
import { verifyStreamChain } from '../../../domain/audit/verify-chain.js';
import {
  concreteRevision,
  ENVELOPE_KEY,
  type EsdbRecord,
  fromEsdbRevision,
  isStreamNotFound,
  isSystemEvent,
  isUnavailable,
  positionFrom,
  toEsdbExpectedRevision,
  toRecordedEvent,
  unwrapMetadata,
  wrapMetadata,
  wrongExpectedActual,
} from './esdb-mapping.js';

describe('ESDB expected revisions', () => {
  it('maps the port vocabulary to the client constants and bigints', () => {
    expect(toEsdbExpectedRevision('no_stream')).toBe('no_stream');
    expect(toEsdbExpectedRevision('stream_exists')).toBe('stream_exists');
    expect(toEsdbExpectedRevision('any')).toBe('any');
    expect(toEsdbExpectedRevision(0)).toBe(0n);
    expect(toEsdbExpectedRevision(41)).toBe(41n);
    expect(toEsdbExpectedRevision(-1)).toBe('no_stream');
  });

  it('rejects revisions ESDB cannot express', () => {
    expect(() => toEsdbExpectedRevision(-2)).toThrow(RangeError);
    expect(() => toEsdbExpectedRevision(1.5)).toThrow(RangeError);
    expect(() => toEsdbExpectedRevision(Number.MAX_SAFE_INTEGER + 1)).toThrow(RangeError);
  });

  it('appends only with concrete revisions (idempotency by event id needs one)', () => {
    expect(concreteRevision(-1)).toBe('no_stream');
    expect(concreteRevision(7)).toBe(7n);
  });

  it('reads the current revision back as a number, -1 for no stream', () => {
    expect(fromEsdbRevision('no_stream')).toBe(-1);
    expect(fromEsdbRevision(undefined)).toBe(-1);
    expect(fromEsdbRevision(0n)).toBe(0);
    expect(fromEsdbRevision(12n)).toBe(12);
  });
});

describe('ESDB metadata envelope', () => {
  const envelope = { recordedAt: '2025-01-02T03:04:05.678Z', hash: 'a'.repeat(64), prevHash: null, schemaVersion: 2 };

  it('wraps and strips the envelope without touching the caller metadata', () => {
    const metadata = { tenant: 't1', correlationId: 'c-1', nested: { x: 1 } };
    const stored = wrapMetadata(metadata, envelope);
    expect(stored[ENVELOPE_KEY]).toEqual(envelope);
    expect(metadata).not.toHaveProperty(ENVELOPE_KEY);
    // What ESDB hands back is the JSON round trip of what was written.
    expect(unwrapMetadata(JSON.parse(JSON.stringify(stored)))).toEqual({ metadata, envelope });
  });

  it('refuses caller metadata that uses the reserved key', () => {
    expect(() => wrapMetadata({ [ENVELOPE_KEY]: 'mine' }, envelope)).toThrow(/reserved/);
  });

  it('reads events written by other clients as having no envelope', () => {
    expect(unwrapMetadata(undefined)).toEqual({ metadata: {}, envelope: null });
    expect(unwrapMetadata(new Uint8Array([1, 2]))).toEqual({ metadata: {}, envelope: null });
    expect(unwrapMetadata({ tenant: 't' })).toEqual({ metadata: { tenant: 't' }, envelope: null });
    expect(unwrapMetadata({ tenant: 't', [ENVELOPE_KEY]: { hash: 1 } })).toEqual({
      metadata: { tenant: 't' },
      envelope: null,
    });
  });
});

describe('ESDB records as port events', () => {
  const content = {
    id: '0b1f7d7e-3c53-4e8f-9b67-3f1f0c1d2e3a',
    streamId: 'trigger-1',
    revision: 0,
    type: 'TriggerRevised',
    schemaVersion: 3,
    data: { b: 1, a: [1.5, 'é', null] },
    metadata: { tenant: 't1' },
  };
  const recordedAt = '2025-06-01T12:00:00.123Z';
  const hash = chainHash(null, recordedAt, eventContent(content));
  const record: EsdbRecord = {
    streamId: content.streamId,
    id: content.id,
    revision: 0n,
    type: content.type,
    data: content.data,
    metadata: wrapMetadata(content.metadata, { recordedAt, hash, prevHash: null, schemaVersion: 3 }),
    created: new Date('2025-06-01T12:00:00.200Z'),
    position: { commit: 4242n, prepare: 4242n },
  };

  it('restores the envelope fields and strips them from metadata; the chain verifies', () => {
    const event = toRecordedEvent(record);
    expect(event).toEqual({ ...content, position: 4242, recordedAt, hash, prevHash: null });
    expect(verifyStreamChain([event])).toEqual([]);
  });

  it('prefers the $all commit position when given', () => {
    expect(toRecordedEvent({ ...record, position: undefined }, 99n).position).toBe(99);
  });

  it('fails loudly when the server reports no position (before 22.6)', () => {
    expect(() => toRecordedEvent({ ...record, position: undefined })).toThrow(/22\.6/);
  });

  it('maps a foreign event with the server timestamp and an empty hash', () => {
    const foreign = toRecordedEvent({ ...record, metadata: undefined });
    expect(foreign).toMatchObject({
      schemaVersion: 1,
      metadata: {},
      recordedAt: '2025-06-01T12:00:00.200Z',
      hash: '',
      prevHash: null,
    });
  });

  it('recognises system streams and events in $all', () => {
    expect(isSystemEvent('$stats-127.0.0.1:2113', 'x')).toBe(true);
    expect(isSystemEvent('$$trigger-1', '$metadata')).toBe(true);
    expect(isSystemEvent('$ce-trigger', '$>')).toBe(true);
    expect(isSystemEvent('trigger-1', '$metadata')).toBe(true);
    expect(isSystemEvent('trigger-1', 'TriggerRevised')).toBe(false);
  });

  it('turns a port position into a $all read position', () => {
    expect(positionFrom(17)).toEqual({ commit: 17n, prepare: 17n });
    expect(() => positionFrom(-1)).toThrow(RangeError);
  });
});

describe('ESDB error classification', () => {
  it('reads the actual revision from WrongExpectedVersionError', () => {
    expect(wrongExpectedActual({ type: 'wrong-expected-version', actualVersion: 3n })).toBe(3);
    expect(wrongExpectedActual({ type: 'wrong-expected-version', actualVersion: 'no_stream' })).toBe(-1);
    expect(wrongExpectedActual({ type: 'unavailable' })).toBeNull();
    expect(wrongExpectedActual(new Error('x'))).toBeNull();
  });

  it('treats gRPC UNAVAILABLE (raw or wrapped) and socket errors as unavailable', () => {
    expect(isUnavailable({ type: 'unavailable', code: 14, message: 'UNAVAILABLE' })).toBe(true);
    // The client's append path rejects with the raw gRPC error, not its UnavailableError.
    expect(
      isUnavailable(
        Object.assign(
          new Error('14 UNAVAILABLE: No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:1.'),
          { code: 14 },
        ),
      ),
    ).toBe(true);
    expect(isUnavailable({ type: 'deadline-exceeded' })).toBe(true);
    expect(isUnavailable({ code: 'ECONNREFUSED' })).toBe(true);
  });

  it('keeps conflicts, missing streams and bugs as themselves', () => {
    expect(isUnavailable({ type: 'wrong-expected-version', message: 'x' })).toBe(false);
    expect(isUnavailable(new TypeError('boom'))).toBe(false);
    expect(isUnavailable(null)).toBe(false);
    expect(isStreamNotFound({ type: 'stream-not-found' })).toBe(true);
    expect(isStreamNotFound(new Error('stream-not-found'))).toBe(false);
  });
});
