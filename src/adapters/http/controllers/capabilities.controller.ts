import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CAPABILITIES_TOKEN } from '../../../commands/shared/tokens.js';
import { Problems, RequireScope } from '../auth/auth.decorators.js';
import { Answer, ReadQuery } from '../openapi/decorators.js';
import * as S from '../openapi/answer-schemas.js';
import { minPositionOf, type RawQuery } from './read-params.js';

@ApiTags('system')
@ApiBearerAuth()
@Controller('v1/capabilities')
export class CapabilitiesController {
  constructor(@Inject(CAPABILITIES_TOKEN) private readonly capabilities: readonly string[]) {}

  /**
   * CP-1: only what this deployment fully implements. `?minPosition` is validated as on every read (a malformed one
   * is the client's mistake), but never waited for: the list is the deployment's configuration, not log state, so
   * no position can make it fresher and it is never stale.
   */
  @ReadQuery()
  @Answer(200, S.capabilities)
  @Get()
  @RequireScope('operator:read')
  @Problems([400, 'BAD_REQUEST'])
  list(@Query() query: RawQuery) {
    minPositionOf(query);
    return { capabilities: this.capabilities };
  }
}
