import type { OperationObject, PathItemObject } from '@nestjs/swagger';
import { ingressAnswer } from '../http/openapi/answer-schemas.js';
import { NO_IDEMPOTENCY_KEY } from '../http/openapi/complete-document.js';

const problem = (codes: string, extra = '') => ({
  description: `application/problem+json, code: ${codes}${extra}`,
});
const header = (name: string, description: string) => ({
  name,
  in: 'header' as const,
  required: false,
  description,
  schema: { type: 'string' as const },
});

/** Webhook ingress is a raw Fastify route (exact bytes for signatures), so Nest's explorer never sees it: api.md's table. */
export const ingressPaths: Record<string, PathItemObject> = {
  '/v1/ingress/{sourceId}': {
    post: {
      tags: ['ingress'],
      summary: 'Webhook ingress: no bearer token, the source scheme authenticates (WH-1..WH-10)',
      [NO_IDEMPOTENCY_KEY]: 'not used: the delivery id is the identity',
      parameters: [
        { name: 'sourceId', in: 'path', required: true, schema: { type: 'string' } },
        header('webhook-id', 'standard-webhooks and unsigned: the delivery id'),
        header('webhook-timestamp', 'standard-webhooks: seconds since the epoch'),
        header('webhook-signature', 'standard-webhooks: v1,<base64 HMAC-SHA256>'),
        header('X-Hub-Signature-256', 'github-hmac-sha256: sha256=<hex>'),
        header('X-GitHub-Delivery', 'github-hmac-sha256: the delivery id'),
        header('X-GitHub-Event', 'github-hmac-sha256: the event type'),
      ],
      requestBody: {
        required: true,
        description: "The producer's payload, kept byte for byte; checked against the source's schema after auth",
        content: {
          'application/json': { schema: { type: 'object', additionalProperties: true } },
          'application/cloudevents+json': { schema: { type: 'object', additionalProperties: true } },
        },
      },
      responses: {
        '202': {
          description: 'durably accepted (an empty list when no Trigger subscribes to the event type)',
          content: { 'application/json': { schema: ingressAnswer } },
        },
        '200': {
          description: 'duplicate: the delivery identity is already accepted with the same payload',
          content: { 'application/json': { schema: ingressAnswer } },
        },
        '400': problem('malformed_request'),
        '401': problem('signature_missing, signature_invalid, timestamp_out_of_tolerance'),
        '404': problem('not_found'),
        '409': problem('payload_conflict'),
        '413': problem('payload_too_large'),
        '429': problem('rate_limited', ' (Retry-After; reason global_rate, lookup_rate, source_rate)'),
        '503': problem('store_unavailable', ' (Retry-After; nothing was persisted)'),
      },
    } as OperationObject,
  },
};
