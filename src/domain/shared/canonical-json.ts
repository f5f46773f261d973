/** Keys sorted in code-unit order, undefined dropped: the reproducible bytes under hash chains and digests. */
export function canonicalJson(value: unknown): string {
  return serialize(value);
}

function serialize(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('canonical JSON cannot hold a non-finite number');
      return JSON.stringify(value);
    case 'object': {
      // Plain loops and one string built as it goes: every hash-chained event passes through here.
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          out += (i === 0 ? '' : ',') + (item === undefined ? 'null' : serialize(item));
        }
        return `${out}]`;
      }
      if (value instanceof Date) return JSON.stringify(value.toISOString());
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      let out = '{';
      for (const key of keys) {
        const member = record[key];
        if (member === undefined) continue;
        out += `${out.length === 1 ? '' : ','}${JSON.stringify(key)}:${serialize(member)}`;
      }
      return `${out}}`;
    }
    default:
      throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
  }
}
