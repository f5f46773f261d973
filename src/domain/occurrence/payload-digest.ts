import { createHash } from 'node:crypto';
import { canonicalJson } from '../shared/canonical-json.js';

/**
 * Of the *parsed* payload (OC-4), so a byte-different provider redelivery is a duplicate rather than a
 * payload_conflict. Caveat: JSON.parse maps integers beyond 2^53 to the nearest double, so payloads
 * differing only in such digits share a digest (signature checks use the raw bytes).
 */
export function payloadDigest(parsed: unknown): string {
  return createHash('sha256').update(canonicalJson(parsed), 'utf8').digest('hex');
}

/** Digest of the exact received bytes: what OC-5 keeps in place of the raw body. */
export function bodyDigest(raw: Buffer): string {
  return createHash('sha256').update(raw).digest('hex');
}
