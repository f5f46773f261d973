import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { SQL_CLIENT, type SqlClient } from '../../../projections/sql-client.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { isReasonCode } from '../../../domain/admission/reasons.js';
import { InvalidCursor } from '../../../projections/occurrences/cursor.js';
import { OCCURRENCES_PROJECTION } from '../../../projections/occurrences/occurrences.projection.js';
import {
  getOccurrence,
  listOccurrences,
  OCCURRENCE_STATUSES,
  type OccurrenceStatus,
} from '../../../projections/occurrences/occurrences.queries.js';
import { ProjectionRunners } from '../../runner/projection-runners.js';
import { SCHEDULES_PROJECTION } from '../../../projections/scheduler/schedules.projection.js';
import { TRIGGER_HEALTH_PROJECTION } from '../../../projections/trigger-health/trigger-health.projection.js';
import { getTriggerHealth, listTriggerHealth } from '../../../projections/trigger-health/trigger-health.queries.js';
import { RequireScope } from '../auth/auth.decorators.js';
import { type FieldError, problems } from '../problems/problem.js';
import { Ctx } from './request-context.js';
import { ResourceId } from './resource-id.pipe.js';

const MAX_LIMIT = 500;
const DEFAULT_LIMIT = 100;
const RESOURCE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const NON_NEGATIVE = /^(0|[1-9][0-9]{0,15})$/;

type RawQuery = Record<string, unknown>;

interface ReadParams {
  limit: number;
  cursor?: string;
  minPosition?: number;
  triggerId?: string;
  status?: OccurrenceStatus;
  reason?: string;
}

/** Every problem is reported at once, before any read, with a `?name` pointer: parameters are not body members. */
function readParams(query: RawQuery, filters: boolean): ReadParams {
  const errors: FieldError[] = [];
  const one = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') {
      errors.push({ pointer: `?${name}`, message: `${name} may be given once` });
      return undefined;
    }
    return value;
  };
  const params: ReadParams = { limit: DEFAULT_LIMIT };
  const limit = one('limit');
  if (limit !== undefined) {
    if (NON_NEGATIVE.test(limit) && Number(limit) >= 1 && Number(limit) <= MAX_LIMIT) params.limit = Number(limit);
    else errors.push({ pointer: '?limit', message: `limit must be an integer from 1 to ${MAX_LIMIT}` });
  }
  const minPosition = one('minPosition');
  if (minPosition !== undefined) {
    if (NON_NEGATIVE.test(minPosition) && Number.isSafeInteger(Number(minPosition)))
      params.minPosition = Number(minPosition);
    else errors.push({ pointer: '?minPosition', message: 'minPosition must be a non-negative integer store position' });
  }
  const cursor = one('cursor');
  if (cursor !== undefined) params.cursor = cursor;
  if (filters) {
    const triggerId = one('triggerId');
    if (triggerId !== undefined) {
      if (RESOURCE_ID.test(triggerId)) params.triggerId = triggerId;
      else
        errors.push({
          pointer: '?triggerId',
          message: 'triggerId is 1–128 characters of A–Z, a–z, 0–9, ".", "_", ":" and "-"',
        });
    }
    const status = one('status');
    if (status !== undefined) {
      if ((OCCURRENCE_STATUSES as readonly string[]).includes(status)) params.status = status as OccurrenceStatus;
      else errors.push({ pointer: '?status', message: `status must be one of ${OCCURRENCE_STATUSES.join(', ')}` });
    }
    const reason = one('reason');
    if (reason !== undefined) {
      if (isReasonCode(reason)) params.reason = reason;
      else errors.push({ pointer: '?reason', message: 'reason must be a stable reason code (AD-3)' });
    }
  }
  if (errors.length > 0) throw problems.badRequest(errors, 'The query parameters are invalid.');
  return params;
}

/** A foreign or forged cursor is the client's mistake, not a server fault. */
async function paged<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof InvalidCursor)
      throw problems.badRequest([{ pointer: '?cursor', message: error.message }], 'The cursor is invalid.');
    throw error;
  }
}

/** OP-1/OP-2: read models only, scoped to the token's tenant; another tenant's row is a plain 404. */
@ApiTags('operator')
@ApiBearerAuth()
@Controller('v1/operator')
export class OperatorController {
  constructor(
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
    private readonly runners: ProjectionRunners,
  ) {}

  @Get('triggers')
  @RequireScope('operator:read')
  async listTriggers(@Ctx() context: CommandContext, @Query() query: RawQuery) {
    const params = readParams(query, false);
    const fresh = await this.caughtUp(params.minPosition, [TRIGGER_HEALTH_PROJECTION, SCHEDULES_PROJECTION]);
    const page = await paged(() =>
      listTriggerHealth(this.sql, context.tenant, { limit: params.limit, cursor: params.cursor }),
    );
    return fresh ? page : { ...page, stale: true };
  }

  @Get('triggers/:triggerId')
  @RequireScope('operator:read')
  async getTrigger(
    @Ctx() context: CommandContext,
    @Param('triggerId', ResourceId) triggerId: string,
    @Query() query: RawQuery,
  ) {
    const params = readParams(query, false);
    const fresh = await this.caughtUp(params.minPosition, [
      TRIGGER_HEALTH_PROJECTION,
      OCCURRENCES_PROJECTION,
      SCHEDULES_PROJECTION,
    ]);
    const detail = await getTriggerHealth(this.sql, context.tenant, triggerId);
    if (!detail) throw problems.notFound();
    return fresh ? detail : { ...detail, stale: true };
  }

  @Get('occurrences')
  @RequireScope('operator:read')
  async listOccurrences(@Ctx() context: CommandContext, @Query() query: RawQuery) {
    const params = readParams(query, true);
    const fresh = await this.caughtUp(params.minPosition, [OCCURRENCES_PROJECTION]);
    const { triggerId, status, reason, limit, cursor } = params;
    const page = await paged(() =>
      listOccurrences(this.sql, context.tenant, { triggerId, status, reason, limit, cursor }),
    );
    return fresh ? page : { ...page, stale: true };
  }

  @Get('occurrences/:occurrenceId')
  @RequireScope('operator:read')
  async getOccurrence(
    @Ctx() context: CommandContext,
    @Param('occurrenceId', ResourceId) occurrenceId: string,
    @Query() query: RawQuery,
  ) {
    const params = readParams(query, false);
    const fresh = await this.caughtUp(params.minPosition, [OCCURRENCES_PROJECTION]);
    const occurrence = await getOccurrence(this.sql, context.tenant, occurrenceId);
    if (!occurrence) throw problems.notFound();
    return fresh ? occurrence : { ...occurrence, stale: true };
  }

  /** Read-your-writes: waits (≤ 2 s each, in parallel) until every read model behind the answer folded P. */
  private async caughtUp(minPosition: number | undefined, names: string[]): Promise<boolean> {
    const reached = await Promise.all(names.map((name) => this.runners.waitFor(name, minPosition)));
    return reached.every(Boolean);
  }
}
