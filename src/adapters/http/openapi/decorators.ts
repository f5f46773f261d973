import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiQuery, ApiResponse } from '@nestjs/swagger';
import type { SchemaObject } from './schema.js';

/** A success answer and its body, next to the route that gives it. */
export const Answer = (status: number, schema: SchemaObject | undefined, description = '') =>
  ApiResponse({ status, description, ...(schema ? { schema } : {}) });

/** The request body as the domain validator reads it (replaces what Nest infers from the DTO). */
export const BodySchema = (schema: SchemaObject) => ApiBody({ required: true, schema });

const minPosition = ApiQuery({
  name: 'minPosition',
  required: false,
  schema: { type: 'integer', minimum: 0 },
  description: 'wait (at most 2 s) until the read models reached this store position; else `stale: true`',
});

/** Single reads take `?minPosition` (read-your-writes). */
export const ReadQuery = () => minPosition;

/** Lists: `?limit` (1–500, default 100), the opaque `cursor`, `?minPosition` and the filters the route reads. */
export const ListQuery = (filters: { ids?: readonly string[]; statuses?: readonly string[]; reasons?: boolean } = {}) =>
  applyDecorators(
    minPosition,
    ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 } }),
    ApiQuery({ name: 'cursor', required: false, schema: { type: 'string' }, description: 'nextCursor of a page' }),
    ...(filters.ids ?? []).map((name) =>
      ApiQuery({ name, required: false, schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' } }),
    ),
    ...(filters.statuses
      ? [ApiQuery({ name: 'status', required: false, schema: { type: 'string', enum: [...filters.statuses] } })]
      : []),
    ...(filters.reasons
      ? [
          ApiQuery({
            name: 'reason',
            required: false,
            schema: { type: 'string' },
            description: 'a stable AD-3 reason code',
          }),
        ]
      : []),
  );
