import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { DASHBOARD_CSP, registerDashboard } from '../../src/adapters/http/ui/dashboard.route.js';

/** The static side of /ui over a real loopback socket, with a built and an unbuilt dashboard directory. */
async function serve(directory: string): Promise<{ app: FastifyInstance; base: string }> {
  const app = Fastify();
  await registerDashboard(app, directory);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

describe('OP-4 /ui static files', () => {
  it('OP-4 serves index.html at /ui/ (redirecting /ui) with the CSP and no-sniff headers; refuses dotfiles and paths out of the directory', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'reveille-ui-'));
    const built = join(parent, 'ui');
    mkdirSync(built);
    writeFileSync(join(built, 'index.html'), '<!doctype html><title>ok</title>');
    writeFileSync(join(built, '.secret'), 'hidden');
    writeFileSync(join(parent, 'outside.txt'), 'outside');
    const { app, base } = await serve(built);
    try {
      const redirect = await fetch(`${base}/ui`, { redirect: 'manual' });
      expect([redirect.status, redirect.headers.get('location')]).toEqual([301, '/ui/']);
      const page = await fetch(`${base}/ui/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<title>ok</title>');
      expect(page.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect((await fetch(`${base}/ui/.secret`)).status).not.toBe(200);
      expect((await fetch(`${base}/ui/..%2foutside.txt`)).status).not.toBe(200);
      expect((await fetch(`${base}/ui/%2e%2e/outside.txt`)).status).not.toBe(200);
      expect((await fetch(`${base}/ui/missing.js`)).status).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('OP-4 an unbuilt dashboard answers /ui with a 404 that says how to build it', async () => {
    const { app, base } = await serve(join(tmpdir(), 'reveille-ui-never-built'));
    try {
      const answer = await fetch(`${base}/ui`);
      expect(answer.status).toBe(404);
      expect(await answer.text()).toContain('npm run build');
    } finally {
      await app.close();
    }
  });
});
