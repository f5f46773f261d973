import type { EventMetadata } from '../../domain/ports/event-store.js';

/** Who asked and under which request: becomes every appended event's metadata. */
export interface CommandContext {
  tenant: string;
  actor: string;
  correlationId: string;
}

export const metadataOf = (context: CommandContext, causationId?: string): EventMetadata => ({
  tenant: context.tenant,
  actor: context.actor,
  correlationId: context.correlationId,
  ...(causationId ? { causationId } : {}),
});
