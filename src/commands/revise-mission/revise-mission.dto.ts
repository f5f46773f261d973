import { DefinitionEnvelopeDto } from '../shared/definition-envelope.dto.js';

/**
 * PUT /v1/missions/{missionId}: state and grants are definition content, the domain's to judge (422
 * invalid_definition, like a Trigger's or a Source's), so only the envelope is typed here.
 */
export class ReviseMissionDto extends DefinitionEnvelopeDto {}
