import { Module } from '@nestjs/common';
import { MissionsController } from '../http/controllers/missions.controller.js';
import { ReviseMissionHandler } from '../../commands/revise-mission/revise-mission.handler.js';

@Module({ controllers: [MissionsController], providers: [ReviseMissionHandler] })
export class MissionsModule {}
