import { Controller, Get, Inject, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { SQL_CLIENT, type SqlClient } from '../../../projections/sql-client.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { IngressCounts, sourceIngressView } from '../../ingress/ingress-counts.js';
import { RequireScope } from '../auth/auth.decorators.js';
import { problems } from '../problems/problem.js';
import { Ctx } from './request-context.js';
import { ResourceId } from './resource-id.pipe.js';
import { Answer } from '../openapi/decorators.js';
import * as S from '../openapi/answer-schemas.js';

/**
 * What reached a source: deliveries accepted, duplicates, ignored (verified, but no Trigger subscribes to
 * the event type) and refused by reason, with the latest sampled refusals (metadata only). Counts of every
 * process add up; another process's last second may not be in yet.
 */
@ApiTags('operator')
@ApiBearerAuth()
@Controller('v1/operator/sources')
export class SourceIngressController {
  constructor(
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
    private readonly counts: IngressCounts,
  ) {}

  @Answer(200, S.sourceIngress)
  @Get(':sourceId')
  @RequireScope('operator:read')
  async get(@Ctx() context: CommandContext, @Param('sourceId', ResourceId) sourceId: string) {
    // This process's own counts are written first, so an operator sees what was just sent here.
    await this.counts.flush();
    const view = await sourceIngressView(this.sql, context.tenant, sourceId);
    if (!view) throw problems.notFound();
    return view;
  }
}
