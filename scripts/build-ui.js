// Builds the operator dashboard (OP-4) into dist/ui: its TypeScript (ui/src, browser ES modules) with tsc, then
// the page and style sheet beside it. The service serves dist/ui at /ui; nothing is fetched from a CDN.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const STATIC_FILES = ['index.html', 'style.css'];

export function buildUi() {
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'ui')], {
    stdio: 'inherit',
    cwd: root,
  });
  mkdirSync(join(root, 'dist', 'ui'), { recursive: true });
  for (const file of STATIC_FILES) copyFileSync(join(root, 'ui', file), join(root, 'dist', 'ui', file));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) buildUi();
