import { payloadDigest } from '../occurrence/payload-digest.js';
import { badString, checkJsonBounds } from '../shared/json-bounds.js';
import { resolvePointer } from '../shared/json-pointer.js';
import { DEFAULT_MAX_BODY_BYTES } from '../source/source-definition.js';
import type { PollBinding } from '../trigger/trigger-blocks.js';

/** Why a poll answer starts nothing (PO-4); the cursor stays where it was. */
export type PollFailureKind =
  | 'http_status'
  | 'timeout'
  | 'network'
  | 'too_large'
  | 'not_json'
  | 'missing_items'
  | 'too_many_items'
  | 'invalid_cursor'
  /** `poll.auth` asks for a secret and none is set, or the stored one cannot be opened. */
  | 'secret_missing';

export interface PollFailure {
  kind: PollFailureKind;
  /** Bounded, never the body. */
  detail: string;
}

/** One entry of the items array, in array order; `problem` set when it cannot become an Occurrence (PO-4). */
export interface PollItem {
  index: number;
  itemId: string | null;
  value: unknown;
  problem: string | null;
  /**
   * The payload digest (OC-4: of the parsed item, as a webhook body's) that tells a duplicate from a payload_conflict
   * and a quarantined item seen again from another one; null only for an item out of bounds, never hashed.
   */
  digest: string | null;
}

export interface PollPage {
  items: PollItem[];
  /** null: absent or null in the answer, so the cursor stays. */
  nextCursor: string | null;
}

export type PollPageResult = { ok: true; page: PollPage } | { ok: false; failure: PollFailure };

/** Every item becomes an Occurrence in the one append of its poll: a page longer than this is refused whole. */
export const MAX_POLL_ITEMS = 1000;
export const MAX_ITEM_ID_LENGTH = 256;
export const MAX_CURSOR_LENGTH = 2048;
export const MAX_FAILURE_DETAIL = 300;
/**
 * OC-5: an item becomes an Occurrence's input, copied into its observation and its admission: bounded as a webhook
 * body is by default (WH-1), although a whole answer may reach `maxResponseBytes` (up to 16 MiB).
 */
export const MAX_POLL_ITEM_BYTES = DEFAULT_MAX_BODY_BYTES;

const CONTROL = /[\u0000-\u001f\u007f]/;

/** Reasons quote pointers and member names from the answer: kept short, since the poll state repeats them. */
const bounded = (text: string): string =>
  text.length > MAX_FAILURE_DETAIL ? `${text.slice(0, MAX_FAILURE_DETAIL)}…` : text;

export const pollFailure = (kind: PollFailureKind, detail: string): PollFailure => ({ kind, detail: bounded(detail) });

/**
 * The http-json@1 contract over a parsed answer: items at `itemsPointer` in array order, each id at `idPointer`
 * (a bounded string or an integer), the next cursor at `nextCursorPointer`. Only a broken answer fails the poll;
 * a broken item is reported on the item, so the Trigger's `onInvalidItem` decides what happens to it.
 */
export function readPollPage(
  body: unknown,
  binding: Pick<PollBinding, 'itemsPointer' | 'idPointer' | 'nextCursorPointer' | 'schema'>,
): PollPageResult {
  const found = resolvePointer(body, binding.itemsPointer);
  if (!found.found || !Array.isArray(found.value))
    return { ok: false, failure: pollFailure('missing_items', `no items array at ${binding.itemsPointer}`) };
  const values = found.value as unknown[];
  if (values.length > MAX_POLL_ITEMS)
    return {
      ok: false,
      failure: pollFailure('too_many_items', `${values.length} items; a page holds at most ${MAX_POLL_ITEMS}`),
    };
  const cursor = nextCursorOf(body, binding.nextCursorPointer);
  if (!cursor.ok) return { ok: false, failure: pollFailure('invalid_cursor', cursor.detail) };
  const items = values.map((value, index) => pollItem(value, index, binding));
  return { ok: true, page: { items, nextCursor: cursor.cursor } };
}

function pollItem(value: unknown, index: number, binding: Pick<PollBinding, 'idPointer' | 'schema'>): PollItem {
  const id = itemIdOf(value, binding.idPointer);
  // Stored as jsonb: what PostgreSQL would refuse is refused here, on the item alone. Hashed only within bounds, so
  // an item nested without limit never exhausts the stack.
  const violation = checkJsonBounds(value);
  const digest = violation ? null : payloadDigest(value);
  const item = (problem: string | null): PollItem => ({
    index,
    itemId: id.ok ? id.id : null,
    value,
    problem: problem === null ? null : bounded(problem),
    digest,
  });
  if (!id.ok) return item(id.problem);
  if (violation) return item(`${violation.message} (${violation.pointer || '/'})`);
  // Measured after the bounds check: serializing an item nested without limit could exhaust the stack.
  const bytes = Buffer.byteLength(JSON.stringify(value));
  if (bytes > MAX_POLL_ITEM_BYTES) return item(`the item is ${bytes} bytes as JSON; at most ${MAX_POLL_ITEM_BYTES}`);
  const missing = binding.schema.required.filter((pointer) => !resolvePointer(value, pointer).found);
  if (missing.length > 0) return item(`the item lacks required members: ${missing.join(', ')}`);
  return item(null);
}

type IdRead = { ok: true; id: string } | { ok: false; problem: string };

function itemIdOf(value: unknown, pointer: string): IdRead {
  const found = resolvePointer(value, pointer);
  if (!found.found || found.value === null || found.value === '')
    return { ok: false, problem: `the item has no id at ${pointer}` };
  const id = found.value;
  if (typeof id === 'number')
    return Number.isSafeInteger(id)
      ? { ok: true, id: String(id) }
      : { ok: false, problem: 'the item id is not an integer' };
  if (typeof id !== 'string') return { ok: false, problem: 'the item id must be a string or an integer' };
  if (id.length > MAX_ITEM_ID_LENGTH)
    return { ok: false, problem: `the item id is longer than ${MAX_ITEM_ID_LENGTH} characters` };
  if (CONTROL.test(id) || badString(id) !== null)
    return { ok: false, problem: 'the item id contains control characters or unpaired surrogates' };
  return { ok: true, id };
}

function nextCursorOf(
  body: unknown,
  pointer: string | null,
): { ok: true; cursor: string | null } | { ok: false; detail: string } {
  if (pointer === null) return { ok: true, cursor: null };
  const found = resolvePointer(body, pointer);
  if (!found.found || found.value === null) return { ok: true, cursor: null };
  const value = found.value;
  const cursor = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof cursor !== 'string' || cursor.length === 0)
    return { ok: false, detail: `the next cursor at ${pointer} is not a non-empty string or a number` };
  if (cursor.length > MAX_CURSOR_LENGTH)
    return { ok: false, detail: `the next cursor is longer than ${MAX_CURSOR_LENGTH} characters` };
  if (CONTROL.test(cursor) || badString(cursor) !== null)
    return { ok: false, detail: 'the next cursor contains control characters or unpaired surrogates' };
  return { ok: true, cursor };
}
