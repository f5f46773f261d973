import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

/** What a stored event's hash covers (AU-2): everything but its position and its own hash. */
export interface HashedEventContent {
  id: string;
  streamId: string;
  revision: number;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: unknown;
}

/** The canonical text of an event's content; the SQL adapters hash exactly this string. */
export function eventContent(event: HashedEventContent): string {
  return canonicalJson({
    id: event.id,
    streamId: event.streamId,
    revision: event.revision,
    type: event.type,
    schemaVersion: event.schemaVersion,
    data: event.data,
    metadata: event.metadata,
  });
}

/** The SQL stores compute the same expression in their INSERT (no extra round trip): keep both in step. */
export function chainHash(prevHash: string | null, recordedAt: string, content: string): string {
  return createHash('sha256')
    .update(`${prevHash ?? ''}\n${recordedAt}\n${content}`, 'utf8')
    .digest('hex');
}
