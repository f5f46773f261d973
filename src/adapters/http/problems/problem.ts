/** An RFC 9457 problem with a stable `code` (SEC-4); thrown anywhere, rendered by the problem filter. */
export class Problem extends Error {
  override readonly name = 'Problem';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail?: string,
    /** Extra members (`errors`, `currentRevision`, …) and response headers. */
    readonly extras: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? title);
  }
}

export interface FieldError {
  pointer: string;
  message: string;
}

/** How every route reports a body that is JSON but not an object (the pointer Nest's own check always used). */
export const NOT_AN_OBJECT: FieldError = { pointer: '/body', message: 'the body must be a JSON object' };

/** How a REST body of another media type than application/json (or of none) is refused (json-body.ts). */
export const NOT_JSON_MEDIA_TYPE: FieldError = {
  pointer: '',
  message: 'The body must be sent with content-type application/json.',
};

export const problems = {
  badRequest: (errors: FieldError[], detail = 'The request is malformed.') =>
    new Problem(400, 'BAD_REQUEST', 'Bad request', detail, { errors }),
  notJsonMediaType: () =>
    new Problem(400, 'BAD_REQUEST', 'Bad request', 'The body is not JSON: only application/json is accepted.', {
      errors: [NOT_JSON_MEDIA_TYPE],
    }),
  unauthenticated: (detail = 'A valid bearer token is required.') =>
    new Problem(401, 'UNAUTHENTICATED', 'Unauthenticated', detail, {}, { 'WWW-Authenticate': 'Bearer' }),
  insufficientScope: (scope: string) =>
    new Problem(403, 'INSUFFICIENT_SCOPE', 'Insufficient scope', `This operation needs the scope "${scope}".`, {
      requiredScope: scope,
    }),
  notFound: (detail = 'No such resource.') => new Problem(404, 'not_found', 'Not found', detail),
  revisionConflict: (currentRevision: number) =>
    new Problem(409, 'revision_conflict', 'Revision conflict', `The resource is at revision ${currentRevision}.`, {
      currentRevision,
    }),
  invalidDefinition: (errors: FieldError[], code = 'invalid_definition', title = 'Invalid definition') =>
    new Problem(422, code, title, errors[0]?.message, { errors }),
  storeUnavailable: () =>
    new Problem(
      503,
      'store_unavailable',
      'Store unavailable',
      'The store could not be reached; nothing was changed. Retry later.',
      {},
      { 'Retry-After': '1' },
    ),
} as const;
