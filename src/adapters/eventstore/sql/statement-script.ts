import { escapeLiteral } from 'pg';
import type { SqlExecutor, SqlQuery } from './sql-client.js';

/**
 * Runs several parameterized statements in one round trip, in order, as one script of the simple
 * query protocol (the only way PostgreSQL takes more than one statement per message). Parameters are
 * inlined as quoted literals, which PostgreSQL types from context exactly as it types untyped
 * parameters, so a statement means the same inlined as bound. Executors without `exec` (test
 * doubles) get the statements one by one.
 */
export async function runStatements(tx: SqlExecutor, statements: readonly SqlQuery[]): Promise<void> {
  if (statements.length === 0) return;
  if (!tx.exec) {
    for (const statement of statements) await tx.query(statement);
    return;
  }
  await tx.exec(statements.map(inline).join(';\n'));
}

/** `$n` outside quoted strings and identifiers becomes the n-th value as a literal. */
export function inline(statement: SqlQuery): string {
  const values = statement.values ?? [];
  let out = '';
  let i = 0;
  const text = statement.text;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      const end = closingQuote(text, i, c, c === "'" && /[eE]/.test(text[i - 1] ?? ''));
      out += text.slice(i, end);
      i = end;
    } else if (c === '$' && /[0-9]/.test(text[i + 1] ?? '')) {
      let j = i + 1;
      while (j < text.length && /[0-9]/.test(text[j]!)) j++;
      const index = Number(text.slice(i + 1, j)) - 1;
      if (index < 0 || index >= values.length) throw new Error(`statement has no value for $${index + 1}`);
      out += literal(values[index]);
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return out;
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

function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return escapeLiteral(value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return `'${String(value)}'`;
  if (value instanceof Date) return `'${value.toISOString()}'`;
  return escapeLiteral(JSON.stringify(value));
}
