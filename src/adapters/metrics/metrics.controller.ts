import { Controller, Get, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../http/auth/auth.decorators.js';
import { Metrics } from './metrics.js';

/** OP-4: Prometheus text format, no token (like health); nothing in it names a tenant or a resource. */
@ApiTags('system')
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get()
  async scrape(@Res() reply: FastifyReply) {
    const { contentType, body } = await this.metrics.scrape();
    return reply.header('content-type', contentType).send(body);
  }
}
