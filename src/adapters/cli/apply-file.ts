import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { isRecord } from '../../domain/shared/fields.js';
import { checkJsonBounds } from '../../domain/shared/json-bounds.js';
import { UsageError } from './args.js';

export type Kind = 'missions' | 'sources' | 'triggers';
/** Applied in this order: a Trigger names its Mission and (webhooks) its Source. */
export const KINDS: readonly Kind[] = ['missions', 'sources', 'triggers'];
const ID_FIELD: Record<Kind, string> = { missions: 'missionId', sources: 'sourceId', triggers: 'triggerId' };

export interface Entry {
  kind: Kind;
  index: number;
  id: string;
  /** The PUT body: the entry without its id. */
  body: Record<string, unknown>;
}

/** `triggers[2] (t-9)`: how every line and error names a file entry. */
export const entryName = (entry: Pick<Entry, 'kind' | 'index' | 'id'>) => `${entry.kind}[${entry.index}] (${entry.id})`;

/**
 * Everything wrong with the file's shape is a usage error before anything is sent. `maxDepth` is the service's
 * bound on a body's nesting (REVEILLE_MAX_JSON_DEPTH): an entry it would refuse with 400 is refused here, before
 * anything (a request body, a dry run's comparison) walks it recursively.
 */
export function readDefinitionsFile(path: string, maxDepth: number): Entry[] {
  const text = readBounded(path, MAX_DEFINITIONS_FILE_BYTES);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path} is not JSON: ${(error as Error).message}`);
  }
  return definitionEntries(parsed, path, maxDepth);
}

/**
 * The largest definitions file apply reads: thousands of definitions fit many times over, and the file is held in
 * memory (its text, then its parsed entries) while it is applied.
 */
export const MAX_DEFINITIONS_FILE_BYTES = 16 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;

/**
 * The file's text, refused before it is read when its size says it is over `limit`, and while reading when it
 * turns out larger (a pipe or device has no size; a file may grow): never more than `limit` bytes in memory.
 */
function readBounded(path: string, limit: number): string {
  const tooLarge = () =>
    new UsageError(`${path} is larger than ${limit / (1024 * 1024)} MiB, the limit of a definitions file`);
  const chunks: Buffer[] = [];
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const stat = fstatSync(fd);
    if (stat.isFile() && stat.size > limit) throw tooLarge();
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      const read = readSync(fd, chunk, 0, CHUNK_BYTES, null);
      if (read === 0) break;
      total += read;
      if (total > limit) throw tooLarge();
      chunks.push(chunk.subarray(0, read));
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function definitionEntries(parsed: unknown, path: string, maxDepth: number): Entry[] {
  if (!isRecord(parsed))
    throw new UsageError(`${path} must be an object { "missions": [...], "sources": [...], "triggers": [...] }`);
  const unknown = Object.keys(parsed).filter((key) => !(KINDS as readonly string[]).includes(key));
  if (unknown.length > 0)
    throw new UsageError(`${path}: unknown key "${unknown[0]}"; a definitions file has missions, sources, triggers`);
  return KINDS.flatMap((kind) => kindEntries(kind, parsed[kind], path, maxDepth));
}

function kindEntries(kind: Kind, list: unknown, path: string, maxDepth: number): Entry[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new UsageError(`${path}: ${kind} must be an array`);
  const idField = ID_FIELD[kind];
  const seen = new Set<string>();
  return list.map((item: unknown, index) => {
    const at = `${path}: ${kind}[${index}]`;
    if (!isRecord(item)) throw new UsageError(`${at} must be an object`);
    const { [idField]: id, ...body } = item;
    if (typeof id !== 'string' || id.length === 0) throw new UsageError(`${at} needs a "${idField}" string`);
    if (seen.has(id)) throw new UsageError(`${at}: ${idField} "${id}" appears twice`);
    seen.add(id);
    // The file states the wanted definition; revisions are the service's business (and apply's GET).
    if ('expectedRevision' in body)
      throw new UsageError(`${at} (${id}): expectedRevision is not part of a definitions file`);
    if (kind === 'sources' && ('keys' in body || 'secret' in body))
      throw new UsageError(`${at} (${id}): secrets never belong in a file; add keys with POST /v1/sources/${id}/keys`);
    // What the service answers 400 for (too deep, NUL, half a surrogate pair, not finite), said before sending
    const violation = checkJsonBounds(body, maxDepth);
    if (violation) throw new UsageError(`${at} (${id}): ${violation.pointer}: ${violation.message}`);
    return { kind, index, id, body };
  });
}
