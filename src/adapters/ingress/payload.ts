import { type CloudEvent, HTTP } from 'cloudevents';
import { checkJsonBounds, DEFAULT_MAX_JSON_DEPTH } from '../../domain/shared/json-bounds.js';
import { resolvePointer } from '../../domain/shared/json-pointer.js';

/** A byte-order mark stays in the text, as Buffer#toString kept it, so JSON.parse refuses it as before. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export type ParsedPayload = { ok: true; payload: unknown; eventType: string | null } | { ok: false; detail: string };

export interface PayloadRules {
  format: 'json' | 'cloudevents-structured' | 'cloudevents-binary';
  eventTypePointer: string | null;
  eventTypeHeader: string | null;
  requiredPointers: readonly string[];
  /** WH-1: deeper payloads are refused before anything is hashed or stored. */
  maxDepth?: number;
}

/**
 * WH-6: parsing happens only after authentication. CloudEvents (WH-10) are parsed with the
 * `cloudevents` SDK; their extension attributes stay data — the payload never chooses authority.
 */
export function parsePayload(body: Buffer, headers: Record<string, string>, rules: PayloadRules): ParsedPayload {
  let text: string;
  try {
    text = STRICT_UTF8.decode(body);
  } catch {
    // Buffer#toString would turn them into U+FFFD: two different bodies would become one stored payload.
    return { ok: false, detail: 'the body is not valid UTF-8 (RFC 8259)' };
  }
  let payload: unknown;
  let ceType: string | null = null;
  try {
    if (rules.format === 'json') {
      payload = JSON.parse(text);
    } else {
      const event = HTTP.toEvent({ headers, body: text }) as CloudEvent<unknown> | CloudEvent<unknown>[];
      if (Array.isArray(event)) return { ok: false, detail: 'CloudEvents batches are not accepted' };
      payload = JSON.parse(JSON.stringify(event.toJSON()));
      ceType = event.type;
    }
  } catch (error) {
    return {
      ok: false,
      detail: `the body is not a valid ${rules.format === 'json' ? 'JSON document' : 'CloudEvent'}: ${(error as Error).message.slice(0, 200)}`,
    };
  }
  if (typeof payload !== 'object' || payload === null)
    return { ok: false, detail: 'the payload must be a JSON object or array' };
  const violation = checkJsonBounds(payload, rules.maxDepth ?? DEFAULT_MAX_JSON_DEPTH);
  if (violation) return { ok: false, detail: `${violation.message} (${violation.pointer || '/'})` };
  const missing = rules.requiredPointers.filter((pointer) => !resolvePointer(payload, pointer).found);
  if (missing.length > 0) return { ok: false, detail: `the payload lacks required members: ${missing.join(', ')}` };
  return {
    ok: true,
    payload,
    eventType: ceType ?? rules.eventTypeHeader ?? eventTypeAt(payload, rules.eventTypePointer),
  };
}

function eventTypeAt(payload: unknown, pointer: string | null): string | null {
  if (pointer === null) return null;
  const found = resolvePointer(payload, pointer);
  return found.found && typeof found.value === 'string' ? found.value : null;
}
