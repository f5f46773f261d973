import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import { auditFeed, auditStream, isResumable } from '../../../commands/audit/audit-reads.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { EVENT_STORE } from '../../../commands/shared/tokens.js';
import type { EventStore } from '../../../domain/ports/event-store.js';
import { ProjectionRunners } from '../../runner/projection-runners.js';
import { Problems, RequireScope } from '../auth/auth.decorators.js';
import { type FieldError, problems } from '../problems/problem.js';
import { marked, type RawQuery } from './read-params.js';
import { Ctx } from './request-context.js';
import { ResourceId } from './resource-id.pipe.js';
import { Answer, ReadQuery } from '../openapi/decorators.js';
import * as S from '../openapi/answer-schemas.js';

const MAX_LIMIT = 500;
const DEFAULT_LIMIT = 100;
const DIGITS = /^(0|[1-9][0-9]{0,15})$/;
/** Revisions are PostgreSQL integers: a larger one is the caller's mistake, not a database error. */
const MAX_REVISION = 2_147_483_647;

/**
 * AU-1: the log as stored, in order, for auditors of the token's tenant; another tenant's stream is a plain 404.
 * Read straight from the log, so `?minPosition` waits only until the store holds P (api.md: read your writes).
 */
@ApiTags('audit')
@Controller('v1/audit')
export class AuditController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runners: ProjectionRunners,
  ) {}

  @ReadQuery()
  @Answer(200, S.auditFeed)
  @Get('events')
  @RequireScope('audit:read')
  @Problems([400, 'BAD_REQUEST'])
  @ApiQuery({
    name: 'after',
    required: false,
    schema: { type: 'integer', minimum: 0 },
    description: 'a position from an earlier page (`next`); 0: the start',
  })
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: 500 },
    description: '1–500, default 100',
  })
  async events(@Ctx() context: CommandContext, @Query() query: RawQuery) {
    const errors: FieldError[] = [];
    const after = integerParam(query, 'after', 0, Number.MAX_SAFE_INTEGER, errors) ?? 0;
    const limit = integerParam(query, 'limit', 1, MAX_LIMIT, errors) ?? DEFAULT_LIMIT;
    const minPosition = integerParam(query, 'minPosition', 0, Number.MAX_SAFE_INTEGER, errors);
    if (errors.length > 0) throw problems.badRequest(errors, 'The query parameters are invalid.');
    // Before the ?after check: a client's own write may be the position it resumes from.
    const fresh = await this.runners.waitForStore(minPosition);
    if (!(await isResumable(this.store, after)))
      throw problems.badRequest([{ pointer: '?after', message: 'no event at this position' }], 'Unknown position.');
    return marked(await auditFeed(this.store, context.tenant, after, limit), fresh);
  }

  @ReadQuery()
  @Answer(200, S.auditStream)
  @Get('streams/:streamId')
  @RequireScope('audit:read')
  @Problems([400, 'BAD_REQUEST'], [404, 'not_found'])
  @ApiQuery({
    name: 'fromRevision',
    required: false,
    schema: { type: 'integer', minimum: 0 },
    description: 'default 0',
  })
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: 500 },
    description: '1–500, default 100; `nextRevision` continues',
  })
  async stream(
    @Ctx() context: CommandContext,
    @Param('streamId', ResourceId) streamId: string,
    @Query() query: RawQuery,
  ) {
    const errors: FieldError[] = [];
    const fromRevision = integerParam(query, 'fromRevision', 0, MAX_REVISION, errors) ?? 0;
    const limit = integerParam(query, 'limit', 1, MAX_LIMIT, errors) ?? DEFAULT_LIMIT;
    const minPosition = integerParam(query, 'minPosition', 0, Number.MAX_SAFE_INTEGER, errors);
    if (errors.length > 0) throw problems.badRequest(errors, 'The query parameters are invalid.');
    const fresh = await this.runners.waitForStore(minPosition);
    const page = await auditStream(this.store, context.tenant, streamId, fromRevision, limit);
    if (!page) throw problems.notFound();
    return marked(page, fresh);
  }
}

/** Every bad parameter is reported at once, before any read, with a `?name` pointer (as read-params.ts does). */
function integerParam(query: RawQuery, name: string, min: number, max: number, errors: FieldError[]) {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value === 'string' && DIGITS.test(value) && Number(value) >= min && Number(value) <= max)
    return Number(value);
  errors.push({ pointer: `?${name}`, message: `${name} must be one integer from ${min} to ${max}` });
  return undefined;
}
