import { createHash } from 'node:crypto';
import { canonicalJson } from '../shared/canonical-json.js';

/**
 * Digest of the *parsed* payload (OC-4, api.md Sources): equal JSON values written with different
 * bytes (whitespace, key order, `\u00e9` vs `é`) are the same payload, so a byte-different provider
 * redelivery is a duplicate rather than a payload_conflict.
 *
 * Caveat: JSON.parse maps integers beyond 2^53 to the nearest double, so two payloads differing only
 * in such digits share a digest. Signature checks are unaffected (they use the raw bytes).
 */
export function payloadDigest(parsed: unknown): string {
  return createHash('sha256').update(canonicalJson(parsed), 'utf8').digest('hex');
}

/** Digest of the exact received bytes: what OC-5 keeps in place of the raw body. */
export function bodyDigest(raw: Buffer): string {
  return createHash('sha256').update(raw).digest('hex');
}
