import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(import.meta.url);
const ROOT = join(dirname(HERE), '..', '..');
const GLOSSARY = join(ROOT, 'docs', 'requirements.md');
const SCANNED = ['src', 'test', 'bench'];

// Only the spec's families, upper case, standing alone: `SHA-256`, `UTF-8`, `sha-1` or `key-1` are not
// requirement ids. `X-1..4` cites a range.
const FAMILIES = ['TR', 'OC', 'DD', 'AD', 'SC', 'WH', 'PO', 'BA', 'CA', 'EX', 'SU', 'CP', 'SEC', 'OP', 'AU'];
const CITATION = new RegExp(
  `(?<![A-Za-z0-9_-])(${FAMILIES.join('|')})-([1-9][0-9]*)(?:\\.\\.([1-9][0-9]*))?(?![A-Za-z0-9])`,
  'g',
);
const GLOSSARY_LINE = new RegExp(`^- (${FAMILIES.join('|')})-([1-9][0-9]*) \\S`);

export function citedIn(text: string): string[] {
  const ids = new Set<string>();
  for (const [, family, from, to] of text.matchAll(CITATION)) {
    const last = to === undefined ? Number(from) : Number(to);
    for (let n = Number(from); n <= last; n++) ids.add(`${family}-${n}`);
  }
  return [...ids];
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

/** Every cited id with the first file citing it; this spec is left out, its examples cite nothing. */
function citations(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of SCANNED.flatMap((dir) => filesUnder(join(ROOT, dir)))) {
    if (file === HERE) continue;
    for (const id of citedIn(readFileSync(file, 'utf8'))) if (!found.has(id)) found.set(id, relative(ROOT, file));
  }
  return found;
}

function glossaryIds(): string[] {
  const items = readFileSync(GLOSSARY, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('- '));
  const malformed = items.filter((line) => !GLOSSARY_LINE.test(line));
  expect(malformed).toEqual([]);
  return items.map((line) => {
    const [, family, n] = GLOSSARY_LINE.exec(line) ?? [];
    return `${family}-${n}`;
  });
}

describe('requirement glossary (docs/requirements.md)', () => {
  describe('reading citations', () => {
    it('takes ids of the known families only, not hashes, encodings or lower-case names', () =>
      expect(citedIn('UTF-8, SHA-256, sha-1, ISO-8601, key-1, XSEC-4, SEC-4a, (SEC-4) and WH-10/OC-3.')).toEqual([
        'SEC-4',
        'WH-10',
        'OC-3',
      ]));

    it('expands a cited range', () => expect(citedIn('SEC-1..3')).toEqual(['SEC-1', 'SEC-2', 'SEC-3']));
  });

  const cited = citations();
  const listed = glossaryIds();

  it('lists every id that src/, test/ or bench/ cites', () => {
    const missing = [...cited].filter(([id]) => !listed.includes(id)).map(([id, file]) => `${id} (cited in ${file})`);
    expect(missing).toEqual([]);
  });

  it('lists no id that nobody cites', () => expect(listed.filter((id) => !cited.has(id))).toEqual([]));

  it('lists each id once', () => expect(listed.filter((id, i) => listed.indexOf(id) !== i)).toEqual([]));
});
