import type { RecordedEvent } from '../../domain/ports/event-store.js';

/** Old events are read through upcasters, never rewritten (AU-3). */
export interface Upcaster {
  type: string;
  fromVersion: number;
  upcast(data: unknown): unknown;
}

export class UpcasterRegistry {
  private readonly byKey = new Map<string, Upcaster>();

  constructor(upcasters: Upcaster[] = []) {
    upcasters.forEach((u) => this.register(u));
  }

  register(upcaster: Upcaster): this {
    const key = `${upcaster.type}@${upcaster.fromVersion}`;
    if (this.byKey.has(key)) throw new Error(`duplicate upcaster for ${key}`);
    this.byKey.set(key, upcaster);
    return this;
  }

  /** The stored event object is left untouched. */
  upcast<E extends RecordedEvent>(event: E): E {
    let { data, schemaVersion } = event;
    for (
      let step = this.byKey.get(`${event.type}@${schemaVersion}`);
      step;
      step = this.byKey.get(`${event.type}@${schemaVersion}`)
    ) {
      data = step.upcast(data);
      schemaVersion += 1;
    }
    return schemaVersion === event.schemaVersion ? event : { ...event, data, schemaVersion };
  }
}
