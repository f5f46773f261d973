import { Module } from '@nestjs/common';
import { AuditController } from '../http/controllers/audit.controller.js';

/** AU-1: the audit feed and stream reads. */
@Module({ controllers: [AuditController] })
export class AuditModule {}
