import { Module } from '@nestjs/common';
import { MissionsController } from '../adapters/http/controllers/missions.controller.js';
import { ReviseMissionHandler } from './revise-mission/revise-mission.handler.js';

@Module({ controllers: [MissionsController], providers: [ReviseMissionHandler] })
export class MissionsModule {}
