import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOCS = ['docs/architecture.md', 'README.md'];

/** Every `src/…`, `test/…` or `bench/…` path a doc names in backticks, without globs or placeholders. */
export function namedPaths(markdown: string): string[] {
  const paths = [...markdown.matchAll(/`((?:src|test|bench|docs)\/[^`\s]+)`/g)].map((m) => m[1]!);
  return [...new Set(paths.filter((p) => !/[<>*{}…]/.test(p)))];
}

describe('the docs name only files and folders that exist', () => {
  it('finds paths in backticks, and only paths', () => {
    expect(namedPaths('see `src/a/b.ts`, `src/<x>/y`, `src/a/*.ts` and `npm test`')).toEqual(['src/a/b.ts']);
  });

  it.each(DOCS)('%s', (doc) => {
    const named = namedPaths(readFileSync(join(ROOT, doc), 'utf8'));
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });
});
