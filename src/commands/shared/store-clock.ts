import type { Clock } from '../../domain/ports/clock.js';
import type { EventStore } from '../../domain/ports/event-store.js';

/** The event store's clock as a Clock (SC-6: the database, never the host, says what time it is). */
export const storeClock = (store: Pick<EventStore, 'now'>): Clock => ({ now: () => store.now() });
