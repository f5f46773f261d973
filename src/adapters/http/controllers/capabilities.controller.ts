import { Controller, Get, Inject } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CAPABILITIES_TOKEN } from '../../../commands/shared/tokens.js';
import { RequireScope } from '../auth/auth.decorators.js';
import { Answer } from '../openapi/decorators.js';
import * as S from '../openapi/answer-schemas.js';

@ApiTags('system')
@ApiBearerAuth()
@Controller('v1/capabilities')
export class CapabilitiesController {
  constructor(@Inject(CAPABILITIES_TOKEN) private readonly capabilities: readonly string[]) {}

  /** CP-1: only what this deployment fully implements. */
  @Answer(200, S.capabilities)
  @Get()
  @RequireScope('operator:read')
  list() {
    return { capabilities: this.capabilities };
  }
}
