import { readFileSync } from 'node:fs';
import { CONFIG_VARIABLES } from './config.js';

interface Row {
  variables: string[];
  accepted: string;
  unset: string;
}

/** The rows of the table under "## Configuration": | variable | meaning | accepted | default |. */
function configurationTable(readme: string): Row[] {
  const section = readme.split(/^## /m).find((s) => s.startsWith('Configuration\n'));
  if (!section) throw new Error('README.md has no "## Configuration" section');
  const lines = section.split('\n').filter((line) => line.startsWith('|'));
  const [header, rule, ...rows] = lines.map((line) =>
    line
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim()),
  );
  expect(header).toEqual(['variable', 'meaning', 'accepted', 'default']);
  expect(rule).toEqual(['---', '---', '---', '---']);
  return rows.map(([variable = '', , accepted = '', unset = '']) => ({
    variables: [...variable.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]!),
    accepted,
    unset,
  }));
}

/** Code spans are presentation: `postgres://` in the README is "postgres://" in a refusal. */
const plain = (markdown: string) => markdown.replaceAll('`', '').replace(/\s+/g, ' ').trim();

describe('README "Configuration"', () => {
  const rows = configurationTable(readFileSync(new URL('../../../README.md', import.meta.url), 'utf8'));

  it('lists exactly the variables the config module reads, one per row', () => {
    expect(rows.map((row) => row.variables)).toEqual(rows.map((row) => row.variables.slice(0, 1)));
    const listed = rows.flatMap((row) => row.variables);
    expect([...listed].sort()).toEqual(CONFIG_VARIABLES.map((variable) => variable.name).sort());
  });

  it.each(CONFIG_VARIABLES.map((variable) => [variable.name, variable] as const))(
    '%s: states what the module accepts and defaults to',
    (name, variable) => {
      const row = rows.find((r) => r.variables.includes(name));
      expect({ accepted: plain(row?.accepted ?? ''), default: plain(row?.unset ?? '') }).toEqual({
        accepted: plain(variable.accepts),
        default: plain(variable.unset),
      });
    },
  );
});
