import { DefinitionEnvelopeDto } from '../shared/definition-envelope.dto.js';

/** PUT /v1/sources/{sourceId}: scheme, limits, pointers and schema are the domain's to judge. */
export class ReviseSourceDto extends DefinitionEnvelopeDto {}
