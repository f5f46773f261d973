import type { SqlClient, SqlQuery } from '../sql-client.js';
import { inline, literal, templateOf } from './statement-script.js';

/** A statement still to be written out, or one already written (a merged one). */
type Piece = SqlQuery | string;

/** From this many statements of one text in a script, it is prepared once and executed with each one's values. */
const PREPARE_FROM = 4;

/**
 * A projection batch's statements as a script, with statements of one text that touch different rows run as one:
 * an INSERT … VALUES as one multi-row VALUES, an UPDATE as one UPDATE … FROM (VALUES …). A rebuild spent most of
 * its time starting ≈ 10,000 one-row statements per 10,000 events; one statement over a thousand rows costs a
 * fraction of that. Same rows as running them one by one:
 *
 * - only statements that say which row they touch (`SqlQuery.touches`) are regrouped; any other one is a wall:
 *   everything before it runs before it, everything after after it;
 * - between walls, a row's statements keep their order: its k-th statement is in wave k, waves run in order, and
 *   a wave holds each row at most once, so rows of one merged statement are distinct (no row is hit twice).
 *
 * What stays one statement per event (walls, texts that cannot be merged) is prepared once per script when a text
 * repeats, so PostgreSQL plans it once instead of for every event (EXECUTE types its values as binding would).
 */
export function mergedScript(statements: readonly SqlQuery[]): string[] {
  const pieces: Piece[] = [];
  let segment: SqlQuery[] = [];
  const flush = () => {
    pieces.push(...inWaves(segment));
    segment = [];
  };
  for (const statement of statements) {
    if (statement.touches === undefined) {
      flush();
      pieces.push(statement);
    } else segment.push(statement);
  }
  flush();
  return written(pieces);
}

/**
 * Prepared statements outlive transactions: each script deallocates its own at its end. A script that fails before
 * its end leaves them on its connection under names no later script uses.
 */
function written(pieces: readonly Piece[]): string[] {
  const repeats = new Map<string, number>();
  for (const piece of pieces)
    if (typeof piece !== 'string') repeats.set(piece.text, (repeats.get(piece.text) ?? 0) + 1);
  const prepared = new Map<string, string>();
  const script: string[] = [];
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      script.push(piece);
      continue;
    }
    const types = parameterTypes.get(piece.text);
    if (!types || repeats.get(piece.text)! < PREPARE_FROM || (piece.values?.length ?? 0) < types.length) {
      script.push(inline(piece));
      continue;
    }
    let name = prepared.get(piece.text);
    if (!name) {
      prepared.set(piece.text, (name = `reveille_batch_${++preparations}`));
      script.push(`PREPARE ${name} AS ${piece.text}`);
    }
    const values = (piece.values ?? []).slice(0, types.length);
    script.push(values.length > 0 ? `EXECUTE ${name}(${values.map(literal).join(', ')})` : `EXECUTE ${name}`);
  }
  for (const name of prepared.values()) script.push(`DEALLOCATE ${name}`);
  return script;
}
let preparations = 0;

function inWaves(segment: readonly SqlQuery[]): Piece[] {
  if (segment.length < 2) return [...segment];
  const seen = new Map<string, number>();
  const waves: Array<Map<string, SqlQuery[]>> = [];
  for (const statement of segment) {
    const wave = seen.get(statement.touches!) ?? 0;
    seen.set(statement.touches!, wave + 1);
    const groups = (waves[wave] ??= new Map());
    const group = groups.get(statement.text);
    if (group) group.push(statement);
    else groups.set(statement.text, [statement]);
  }
  return waves.flatMap((groups) => [...groups.values()].flatMap(merged));
}

function merged(group: readonly SqlQuery[]): Piece[] {
  const [first] = group;
  // A statement short of a value fails as it would alone.
  const needed = Math.max(0, ...templateOf(first!.text).slots.map((slot) => slot + 1));
  if (group.length < 2 || group.some((s) => (s.values?.length ?? 0) < needed)) return [...group];
  const insert = insertShape(first!.text);
  if (insert)
    return [
      `${insert.head}${group.map((s) => inline({ text: insert.row, values: s.values })).join(', ')}${insert.tail}`,
    ];
  const types = parameterTypes.get(first!.text);
  const update = updateShape(first!.text);
  if (update && types) return [mergedUpdate(update, types, group)];
  return [...group];
}

interface InsertShape {
  head: string;
  row: string;
  tail: string;
}

/** `INSERT INTO t (…) VALUES (…) [ON CONFLICT …]` with every parameter inside the one VALUES row. */
function insertShape(text: string): InsertShape | null {
  const start = /^\s*INSERT\s+INTO\s+[\w.]+\s*\([\w\s,]*\)\s*VALUES\s*/i.exec(text);
  if (!start) return null;
  const end = closingParenthesis(text, start[0].length);
  if (end < 0) return null;
  const [head, row, tail] = [text.slice(0, start[0].length), text.slice(start[0].length, end + 1), text.slice(end + 1)];
  if (/\$[0-9]/.test(head) || /\$[0-9]/.test(tail) || /\bRETURNING\b/i.test(tail)) return null;
  return { head, row, tail };
}

interface UpdateShape {
  table: string;
  set: string;
  where: string;
}

/** `UPDATE t SET … WHERE …` reading nothing but its own row: no FROM, no sub-select, one WHERE. */
function updateShape(text: string): UpdateShape | null {
  const shape = /^\s*UPDATE\s+([\w.]+)\s+SET\s+([\s\S]+?)\s+WHERE\s+([\s\S]+)$/i.exec(text);
  if (!shape || /\b(FROM|SELECT|RETURNING)\b/i.test(text) || text.match(/\bWHERE\b/gi)!.length !== 1) return null;
  return { table: shape[1]!, set: shape[2]!, where: shape[3]! };
}

function mergedUpdate(update: UpdateShape, types: readonly string[], group: readonly SqlQuery[]): string {
  const columns = types.map((_, i) => `p${i + 1}`);
  const rows = group.map((s) => `(${types.map((type, i) => `${literal(s.values?.[i])}::${type}`).join(', ')})`);
  return `UPDATE ${update.table} SET ${asColumns(update.set)} FROM (VALUES ${rows.join(', ')}) AS v(${columns.join(', ')}) WHERE ${asColumns(update.where)}`;
}

/** `$n` outside quotes becomes `v.pn`, the n-th column of the merged VALUES. */
function asColumns(text: string): string {
  const { parts, slots } = templateOf(text);
  return parts.reduce((out, part, k) => out + part + (k < slots.length ? `v.p${slots[k]! + 1}` : ''), '');
}

/** Index of the parenthesis closing the one opening at `open`, quotes skipped; −1 if none. */
function closingParenthesis(text: string, open: number): number {
  if (text[open] !== '(') return -1;
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      const close = text.indexOf(c, i + 1);
      if (close < 0) return -1;
      i = close;
    } else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}

/** Statement text → the types PostgreSQL infers for its parameters (null: it could not). Texts are code constants. */
const parameterTypes = new Map<string, readonly string[] | null>();
let probes = 0;

/**
 * A merged UPDATE's VALUES must carry the types its parameters would have been bound with, and a prepared text
 * must be one PostgreSQL can prepare: it says both when the text is prepared. Learnt once per text and process; a
 * text that cannot be prepared is simply run as written.
 */
export async function learnParameterTypes(sql: SqlClient, statements: readonly SqlQuery[]): Promise<void> {
  const repeats = new Map<string, number>();
  for (const s of statements) repeats.set(s.text, (repeats.get(s.text) ?? 0) + 1);
  const unknown = new Set(
    statements
      .filter((s) => !parameterTypes.has(s.text))
      .filter((s) => repeats.get(s.text)! >= PREPARE_FROM || (s.touches !== undefined && updateShape(s.text)))
      .map((s) => s.text),
  );
  for (const text of unknown) {
    const name = `reveille_probe_${++probes}`;
    try {
      parameterTypes.set(
        text,
        await sql.transaction(async (tx) => {
          await tx.query(`PREPARE ${name} AS ${text}`);
          try {
            const { rows } = await tx.query<{ types: string[] }>(
              `SELECT parameter_types::text[] AS types FROM pg_prepared_statements WHERE name = $1`,
              [name],
            );
            return rows[0]?.types ?? null;
          } finally {
            await tx.query(`DEALLOCATE ${name}`);
          }
        }),
      );
    } catch {
      parameterTypes.set(text, null);
    }
  }
}
