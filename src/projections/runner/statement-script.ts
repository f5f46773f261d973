import type { SqlExecutor, SqlQuery } from '../sql-client.js';

/**
 * A simple-query script is the only way PostgreSQL takes several statements per message. Quoted literals are
 * typed from context exactly as untyped parameters are, so a statement means the same inlined as bound.
 */
export async function runStatements(tx: SqlExecutor, statements: readonly SqlQuery[]): Promise<void> {
  if (statements.length === 0) return;
  if (!tx.exec) {
    for (const statement of statements) await tx.query(statement);
    return;
  }
  await tx.exec(statements.map(inline).join(';\n'));
}

/** A statement's text cut at its parameters: `parts[k]`, then value `slots[k]`, …, then the last part. */
export interface Template {
  parts: string[];
  slots: number[];
}

// Statement texts are a few constants of the projections: each is cut once, not rescanned per event.
const templates = new Map<string, Template>();
const MAX_TEMPLATES = 1_000;

/** `$n` outside quoted strings and identifiers becomes the n-th value as a literal. */
export function inline(statement: SqlQuery): string {
  const values = statement.values ?? [];
  const { parts, slots } = templateOf(statement.text);
  let out = parts[0]!;
  for (let k = 0; k < slots.length; k++) {
    const index = slots[k]!;
    if (index < 0 || index >= values.length) throw new Error(`statement has no value for $${index + 1}`);
    out += literal(values[index]) + parts[k + 1]!;
  }
  return out;
}

export function templateOf(text: string): Template {
  let template = templates.get(text);
  if (!template) {
    if (templates.size >= MAX_TEMPLATES) templates.clear();
    templates.set(text, (template = cut(text)));
  }
  return template;
}

function cut(text: string): Template {
  const parts: string[] = [];
  const slots: number[] = [];
  let partStart = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      i = closingQuote(text, i, c, c === "'" && /[eE]/.test(text[i - 1] ?? ''));
    } else if (c === '$' && /[0-9]/.test(text[i + 1] ?? '')) {
      let j = i + 1;
      while (j < text.length && /[0-9]/.test(text[j]!)) j++;
      parts.push(text.slice(partStart, i));
      slots.push(Number(text.slice(i + 1, j)) - 1);
      partStart = i = j;
    } else {
      i++;
    }
  }
  parts.push(text.slice(partStart));
  return { parts, slots };
}

function closingQuote(text: string, start: number, quote: string, backslashEscapes: boolean): number {
  for (let i = start + 1; i < text.length; i++) {
    if (backslashEscapes && text[i] === '\\') i++;
    else if (text[i] === quote) {
      if (text[i + 1] !== quote) return i + 1;
      i++;
    }
  }
  throw new Error('unterminated quote in statement');
}

export function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return quoteLiteral(value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return `'${String(value)}'`;
  if (value instanceof Date) return `'${value.toISOString()}'`;
  return quoteLiteral(JSON.stringify(value));
}

/**
 * pg's `escapeLiteral`, character for character: quotes doubled, and with a backslash anywhere, backslashes doubled
 * in an E-string. Not pg's own, which appends one character at a time: a rebuild inlines every event's JSON, and
 * a CPU profile of a million-event rebuild had its main thread busy 47.9 s with it, 42.6 s with this.
 */
export function quoteLiteral(text: string): string {
  return text.includes('\\')
    ? ` E'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`
    : `'${text.replace(/'/g, "''")}'`;
}
