import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from '../../scripts/build-if-needed.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('package exports', () => {
  it("`reveille/client` resolves to the compiled consumer client through package.json's exports", () => {
    ensureBuilt();
    const script = "const m = await import('reveille/client'); console.log(Object.keys(m).sort().join(','));";
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT }).toString();
    expect(output.trim()).toBe('ApiError,NonRetryableError,createWorker');
  });
});
