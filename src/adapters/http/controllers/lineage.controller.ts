import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { occurrenceIdOf } from '../../../domain/execution/index.js';
import { LINEAGE_PROJECTION } from '../../../projections/causality/lineage.projection.js';
import { ancestorsOf, descendantsOf, operationsOf } from '../../../projections/causality/lineage.queries.js';
import { OCCURRENCES_PROJECTION } from '../../../projections/occurrences/occurrences.projection.js';
import { getOccurrence } from '../../../projections/occurrences/occurrences.queries.js';
import { SQL_CLIENT, type SqlClient } from '../../../projections/sql-client.js';
import { ProjectionRunners } from '../../runner/projection-runners.js';
import { RequireScope } from '../auth/auth.decorators.js';
import { Answer, ListQuery } from '../openapi/decorators.js';
import * as S from '../openapi/answer-schemas.js';
import { problems } from '../problems/problem.js';
import { marked, paged, type RawQuery, readParams } from './read-params.js';
import { Ctx } from './request-context.js';
import { ResourceId } from './resource-id.pipe.js';

/**
 * OP-2: an Occurrence's causal lineage from the read models. Ancestors are its own recorded ancestry (bounded by
 * CA-1, so served whole, nearest first); descendants are every Occurrence whose ancestry names it, paginated with
 * `?limit` and `cursor`; `operations` are those its execution recorded (CA-2). A batch member's execution is its
 * batch's, named after the batch's first member (BA-1): its Operations and their callbacks are that execution's,
 * so they are served for every member (`runsAs` names that Occurrence). Another tenant's Occurrence is a 404.
 */
@ApiTags('operator')
@ApiBearerAuth()
@Controller('v1/operator')
export class LineageController {
  constructor(
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
    private readonly runners: ProjectionRunners,
  ) {}

  @ListQuery()
  @Answer(200, S.lineage)
  @Get('occurrences/:occurrenceId/lineage')
  @RequireScope('operator:read')
  async lineage(
    @Ctx() context: CommandContext,
    @Param('occurrenceId', ResourceId) occurrenceId: string,
    @Query() query: RawQuery,
  ) {
    const params = readParams(query);
    const reached = await Promise.all(
      [OCCURRENCES_PROJECTION, LINEAGE_PROJECTION].map((name) => this.runners.waitFor(name, params.minPosition)),
    );
    const occurrence = await getOccurrence(this.sql, context.tenant, occurrenceId);
    if (!occurrence) throw problems.notFound();
    // CA-1: a callback's ancestry names the Occurrence its execution is named after (a batch's first member).
    const runsAs = (occurrence.executionId && occurrenceIdOf(occurrence.executionId)) || occurrenceId;
    const [ancestors, descendants, operations] = await Promise.all([
      ancestorsOf(this.sql, context.tenant, occurrence.causal),
      paged(() => descendantsOf(this.sql, context.tenant, runsAs, params)),
      operationsOf(this.sql, context.tenant, runsAs),
    ]);
    return marked(
      {
        occurrenceId,
        ...(runsAs !== occurrenceId ? { runsAs } : {}),
        causal: occurrence.causal,
        ancestors,
        operations,
        descendants: descendants.items,
        nextCursor: descendants.nextCursor,
      },
      reached.every(Boolean),
    );
  }
}
