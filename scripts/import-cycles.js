// Lists import cycles in src/, type-only imports included (eslint-plugin-import-x's no-cycle skips
// those, yet a cycle of types still ties two modules into one). Exits 1 when there is any.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*'(\.[^']+)'/g;

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

const files = sources(join(root, 'src'));
const edges = new Map(
  files.map((file) => {
    const targets = [...readFileSync(file, 'utf8').matchAll(IMPORT)]
      .map((m) => normalize(join(dirname(file), m[1].replace(/\.js$/, '.ts'))))
      .filter((target) => existsSync(target));
    return [file, targets];
  }),
);

// Tarjan's strongly connected components: every component of more than one module is a cycle.
let index = 0;
const stack = [];
const state = new Map();
const cycles = [];
function connect(file) {
  state.set(file, { index, low: index, onStack: true });
  index += 1;
  stack.push(file);
  for (const target of edges.get(file) ?? []) {
    if (!state.has(target)) {
      connect(target);
      state.get(file).low = Math.min(state.get(file).low, state.get(target).low);
    } else if (state.get(target).onStack) {
      state.get(file).low = Math.min(state.get(file).low, state.get(target).index);
    }
  }
  if (state.get(file).low !== state.get(file).index) return;
  const component = [];
  let member;
  do {
    member = stack.pop();
    state.get(member).onStack = false;
    component.push(member);
  } while (member !== file);
  if (component.length > 1) cycles.push(component);
}
for (const file of files) if (!state.has(file)) connect(file);

for (const cycle of cycles) process.stderr.write(`import cycle: ${cycle.map((f) => relative(root, f)).join(' ↔ ')}\n`);
if (cycles.length > 0) process.exit(1);
process.stdout.write(`no import cycles among ${files.length} modules of src/\n`);
