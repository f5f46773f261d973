import type { SchemaObject } from '@nestjs/swagger';

export type { SchemaObject };

/** OpenAPI 3.0 schema builders: the document states shapes the way the validators read them, briefly. */
export const str = (extra: SchemaObject = {}): SchemaObject => ({ type: 'string', ...extra });
export const int = (min?: number, max?: number, extra: SchemaObject = {}): SchemaObject => ({
  type: 'integer',
  ...(min === undefined ? {} : { minimum: min }),
  ...(max === undefined ? {} : { maximum: max }),
  ...extra,
});
export const num = (min?: number, max?: number): SchemaObject => ({
  type: 'number',
  ...(min === undefined ? {} : { minimum: min }),
  ...(max === undefined ? {} : { maximum: max }),
});
export const bool = (description?: string): SchemaObject => ({
  type: 'boolean',
  ...(description ? { description } : {}),
});
export const oneOfStrings = (values: readonly string[], extra: SchemaObject = {}): SchemaObject => ({
  type: 'string',
  enum: [...values],
  ...extra,
});
export const nullable = (schema: SchemaObject): SchemaObject => ({ ...schema, nullable: true });
export const array = (items: SchemaObject, max?: number, extra: SchemaObject = {}): SchemaObject => ({
  type: 'array',
  items,
  ...(max === undefined ? {} : { maxItems: max }),
  ...extra,
});
/** Members not listed in `required` are optional; `closed` mirrors a validator's `onlyKnown`. */
export const obj = (
  properties: Record<string, SchemaObject>,
  required: string[] = [],
  { closed = false, description }: { closed?: boolean; description?: string } = {},
): SchemaObject => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
  ...(closed ? { additionalProperties: false } : {}),
  ...(description ? { description } : {}),
});
/** Free JSON chosen by the caller (Mission input, receipts, payload literals): any value, stated as such. */
export const anyJson = (description: string): SchemaObject => ({ description });
/** Any JSON object chosen by the caller or recorded as evidence. */
export const jsonObject = (description: string): SchemaObject => ({
  type: 'object',
  additionalProperties: true,
  description,
});

export const POINTER = str({
  pattern: '^/([^~]|~[01])*$',
  maxLength: 1024,
  description: 'JSON pointer (RFC 6901) starting with "/"',
});
/** A pointer that may also be "" (RFC 6901: the whole document), where the whole answer or item is meant. */
export const POINTER_OR_ROOT = str({
  pattern: '^(/([^~]|~[01])*)?$',
  maxLength: 1024,
  description: 'JSON pointer (RFC 6901): "" for the whole document, else starting with "/"',
});
/** A required string member as `FieldReader.string` reads it. */
export const NAME = str({ minLength: 1, maxLength: 256 });
export const RESOURCE_ID = str({ pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' });
export const INSTANT = str({ format: 'date-time', description: 'RFC 3339 UTC with milliseconds' });
export const POSITION = int(0, undefined, { description: 'store position of the last event written' });

/** Every list: `{ items, nextCursor }` (api.md, Conventions). */
export const page = (item: SchemaObject): SchemaObject =>
  obj({ items: array(item), nextCursor: nullable(str()), stale: bool('read models behind ?minPosition') }, [
    'items',
    'nextCursor',
  ]);
