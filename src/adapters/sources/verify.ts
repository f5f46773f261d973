import { createHmac, timingSafeEqual } from 'node:crypto';
import { indexHeaders, malformed, singleHeader, type HeaderIndex, type MalformedRequest } from './headers.js';
import { parseSecret, type SignedScheme, type SourceScheme } from '../../domain/source/source-secret.js';

/**
 * Replay protection (WH-4, DD-2) is the caller's. For github-hmac-sha256 there is no signed timestamp, so the
 * replay store's horizon must cover GitHub's redelivery window.
 */

export interface SourceKey {
  readonly keyId: string;
  readonly generation: number;
  readonly secret: string;
}

export interface VerifyDeliveryInput {
  readonly scheme: SourceScheme;
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
  /** Current and explicitly retained previous keys; retired keys must not be passed (WH-3). */
  readonly keys: readonly SourceKey[];
  readonly toleranceSeconds: number;
  readonly now: Date;
}

export interface VerifiedDelivery {
  readonly ok: true;
  readonly authState: 'verified' | 'unverified';
  readonly keyId: string | null;
  readonly keyGeneration: number | null;
  readonly deliveryId: string;
  /** The signed timestamp (standard-webhooks only); never a payload time. */
  readonly timestamp: Date | null;
  /** GitHub does not sign its headers: unauthenticated routing data that anyone replaying a body can change. */
  readonly eventTypeHeader: string | null;
}

export type AuthFailure = {
  readonly ok: false;
  readonly status: 401;
  readonly code: 'signature_missing' | 'signature_invalid' | 'timestamp_out_of_tolerance';
  readonly detail: string;
};

export type VerificationFailure = MalformedRequest | AuthFailure;
export type VerificationResult = VerifiedDelivery | VerificationFailure;

export const MAX_DELIVERY_ID_LENGTH = 256;
const MAX_EVENT_TYPE_LENGTH = 256;

function authFailure(code: AuthFailure['code'], detail: string): AuthFailure {
  return { ok: false, status: 401, code, detail };
}

export function verifyDelivery(input: VerifyDeliveryInput): VerificationResult {
  // A NaN or negative tolerance would make every range comparison false, i.e. accept everything.
  if (!Number.isFinite(input.toleranceSeconds) || input.toleranceSeconds < 0) {
    throw new RangeError('toleranceSeconds must be a finite, non-negative number');
  }
  if (!(input.now instanceof Date) || Number.isNaN(input.now.getTime()))
    throw new RangeError('now must be a valid Date');
  const indexed = indexHeaders(input.rawHeaders);
  if (!indexed.ok) return indexed;
  switch (input.scheme) {
    case 'standard-webhooks':
      return verifyStandardWebhooks(indexed.index, input);
    case 'github-hmac-sha256':
      return verifyGithub(indexed.index, input);
    case 'unsigned':
      return acceptUnsigned(indexed.index);
    default:
      // An unknown scheme must never fall through to a weaker one.
      throw new TypeError('unknown source scheme');
  }
}

/**
 * Visible ASCII only: latin1 vs UTF-8 would give a non-ASCII id two byte forms; `.` separates the signed content.
 * A "," is two header lines a proxy folded into one (RFC 9110 §5.3: `a, b`), refused as two lines are (WH-2): the
 * id is the delivery identity, so no copy of it is picked. Neither scheme's ids hold one (`msg_…`, a GUID), and
 * GitHub does not sign its delivery id, so a fold there would otherwise pass with a valid signature.
 */
export function validateDeliveryId(id: string | null, header: string): { ok: true; id: string } | MalformedRequest {
  if (id === null || id.length === 0) return malformed(`header ${header} is required`);
  if (id.length > MAX_DELIVERY_ID_LENGTH)
    return malformed(`header ${header} is longer than ${MAX_DELIVERY_ID_LENGTH} characters`);
  if (!/^[\x20-\x7e]+$/.test(id)) return malformed(`header ${header} contains control or non-ASCII characters`);
  if (id.includes(',')) return malformed(`header ${header} appears more than once (folded into one line)`);
  if (id.includes('.')) return malformed(`header ${header} contains "."`);
  return { ok: true, id };
}

// Duplicates are checked before anything is interpreted, so a duplicated header is always a 400.
function readAll<N extends string>(
  index: HeaderIndex,
  names: readonly N[],
): { ok: true; values: Record<N, string | null> } | MalformedRequest {
  const values = {} as Record<N, string | null>;
  for (const name of names) {
    const single = singleHeader(index, name);
    if (!single.ok) return single;
    values[name] = single.value;
  }
  return { ok: true, values };
}

function candidateKeys(scheme: SignedScheme, keys: readonly SourceKey[]): Array<{ key: Buffer; source: SourceKey }> {
  // An unparsable key is skipped: the outcome stays a 401, not a bypass or a 500 that leaks which key is broken.
  const parsed: Array<{ key: Buffer; source: SourceKey }> = [];
  for (const source of keys) {
    const result = parseSecret(scheme, source.secret);
    if (result.ok) parsed.push({ key: result.key, source });
  }
  // Newest generation first so that, should two generations share a secret, the current one is named.
  return parsed.sort((a, b) => b.source.generation - a.source.generation);
}

function constantTimeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

const TIMESTAMP = /^(?:0|[1-9][0-9]{0,11})$/;

function verifyStandardWebhooks(index: HeaderIndex, input: VerifyDeliveryInput): VerificationResult {
  const read = readAll(index, ['webhook-id', 'webhook-timestamp', 'webhook-signature']);
  if (!read.ok) return read;
  const headers = read.values;
  const signatureHeader = headers['webhook-signature'];
  if (signatureHeader === null || signatureHeader === '')
    return authFailure('signature_missing', 'webhook-signature header is missing');
  const checkedId = validateDeliveryId(headers['webhook-id'], 'webhook-id');
  if (!checkedId.ok) return checkedId;
  const id = checkedId.id;
  const timestampText = headers['webhook-timestamp'];
  if (timestampText === null || !TIMESTAMP.test(timestampText)) {
    return malformed('header webhook-timestamp must be integer seconds since the epoch');
  }

  const entries = signatureHeader.split(/[ \t]+/);
  // The scheme's own list is space-separated `<version>,<signature>` entries (several during a key rotation),
  // and base64 holds no ",". A second "," in an entry (`v1,A, v1,B`, `v1,A,v1,B`), or an entry with no version
  // before its "," (an empty copy: `, v1,B`), is two header lines a proxy folded into one (RFC 9110 §5.3): a
  // duplicate, refused as two lines are whatever the copies hold, so a forged copy beside a captured valid one is
  // never resolved by picking one. (`v1,` alone is an empty signature, not a fold: it just matches nothing.)
  if (entries.some((entry) => entry.indexOf(',') !== entry.lastIndexOf(',') || entry.startsWith(',')))
    return malformed('header webhook-signature appears more than once (folded into one line)');
  const provided = entries
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => Buffer.from(entry.slice(3), 'latin1'));
  // As bytes: re-encoding would let two byte sequences (invalid UTF-8 → U+FFFD) share one signature.
  const signedPrefix = Buffer.from(`${id}.${timestampText}.`, 'latin1');
  let matched: { key: Buffer; source: SourceKey } | undefined;
  for (const candidate of candidateKeys('standard-webhooks', input.keys)) {
    const expected = Buffer.from(
      createHmac('sha256', candidate.key).update(signedPrefix).update(input.body).digest('base64'),
      'latin1',
    );
    if (provided.some((sig) => constantTimeEqual(sig, expected))) {
      matched = candidate;
      break;
    }
  }
  if (!matched) return authFailure('signature_invalid', 'no recognised signature matches a current key');

  // Signature first: without a valid one the sender learns nothing about our clock or tolerance.
  const timestampSeconds = Number(timestampText);
  const nowSeconds = Math.floor(input.now.getTime() / 1000);
  if (Math.abs(nowSeconds - timestampSeconds) > input.toleranceSeconds) {
    return authFailure('timestamp_out_of_tolerance', 'webhook-timestamp is outside the tolerance window');
  }
  return {
    ok: true,
    authState: 'verified',
    keyId: matched.source.keyId,
    keyGeneration: matched.source.generation,
    deliveryId: id,
    timestamp: new Date(timestampSeconds * 1000),
    eventTypeHeader: null,
  };
}

const GITHUB_SIGNATURE = /^sha256=[0-9a-f]{64}$/;

function verifyGithub(index: HeaderIndex, input: VerifyDeliveryInput): VerificationResult {
  const read = readAll(index, ['x-hub-signature-256', 'x-github-delivery', 'x-github-event']);
  if (!read.ok) return read;
  const headers = read.values;
  const signatureHeader = headers['x-hub-signature-256'];
  if (signatureHeader === null || signatureHeader === '')
    return authFailure('signature_missing', 'x-hub-signature-256 header is missing');
  const checkedId = validateDeliveryId(headers['x-github-delivery'], 'x-github-delivery');
  if (!checkedId.ok) return checkedId;
  const id = checkedId.id;
  const eventType = headers['x-github-event'];
  if (eventType !== null && (eventType.length > MAX_EVENT_TYPE_LENGTH || !/^[\x21-\x7e]*$/.test(eventType))) {
    return malformed('header x-github-event is not a visible ASCII token');
  }
  // One signature, never a list: a "," is two header lines a proxy folded into one (RFC 9110 §5.3).
  if (signatureHeader.includes(','))
    return malformed('header x-hub-signature-256 appears more than once (folded into one line)');
  // Lowercase hex only, as GitHub sends it: one accepted spelling per signature.
  if (!GITHUB_SIGNATURE.test(signatureHeader))
    return authFailure('signature_invalid', 'x-hub-signature-256 is not sha256=<64 lowercase hex>');
  const provided = Buffer.from(signatureHeader.slice('sha256='.length), 'hex');

  for (const candidate of candidateKeys('github-hmac-sha256', input.keys)) {
    const expected = createHmac('sha256', candidate.key).update(input.body).digest();
    if (constantTimeEqual(provided, expected)) {
      return {
        ok: true,
        authState: 'verified',
        keyId: candidate.source.keyId,
        keyGeneration: candidate.source.generation,
        deliveryId: id,
        timestamp: null,
        eventTypeHeader: eventType === '' ? null : eventType,
      };
    }
  }
  return authFailure('signature_invalid', 'x-hub-signature-256 does not match a current key');
}

function acceptUnsigned(index: HeaderIndex): VerificationResult {
  // Ignored, not checked: the source is unsigned by configuration; a sender cannot change its trust by adding them.
  const header = singleHeader(index, 'webhook-id');
  if (!header.ok) return header;
  const checkedId = validateDeliveryId(header.value, 'webhook-id');
  if (!checkedId.ok) return checkedId;
  return {
    ok: true,
    authState: 'unverified',
    keyId: null,
    keyGeneration: null,
    deliveryId: checkedId.id,
    timestamp: null,
    eventTypeHeader: null,
  };
}
