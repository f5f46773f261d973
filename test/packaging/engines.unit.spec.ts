import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

interface Semver {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
}
const semver = createRequire(import.meta.url)('semver') as Semver;

interface LockedPackage {
  version?: string;
  engines?: { node?: string } | string[];
}
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockedPackage> };

/** What `npm ci` reports as EBADENGINE: a locked package whose engines.node excludes the given Node version. */
function refusing(nodeVersion: string): string[] {
  return Object.entries(lock.packages)
    .filter(([path]) => path !== '')
    .flatMap(([path, locked]) => {
      const range = Array.isArray(locked.engines) ? undefined : locked.engines?.node;
      return range && !semver.satisfies(nodeVersion, range) ? [`${path}@${locked.version} needs node ${range}`] : [];
    });
}

describe('packaging: every locked dependency supports the Node versions the project declares', () => {
  it('the oldest declared Node version satisfies every engines.node in package-lock.json', () => {
    const oldest = semver.minVersion(manifest.engines.node);
    expect(oldest).not.toBeNull();
    expect(refusing(oldest!.version)).toEqual([]);
  });

  it('the Node version running the tests does too (npm ci prints no EBADENGINE here)', () => {
    expect(semver.satisfies(process.versions.node, manifest.engines.node)).toBe(true);
    expect(refusing(process.versions.node)).toEqual([]);
  });
});
