import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { packageRoot } from '../../cli/version.js';

/**
 * OP-4: the dashboard's own pages may only load their own scripts and styles and talk to this origin, so a
 * hostile value that slipped past the DOM-only rendering still could not run or send anything anywhere.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const HEADERS: Record<string, string> = {
  'content-security-policy': DASHBOARD_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // A token lives in the page's sessionStorage: never show the page inside another site's frame.
  'x-frame-options': 'DENY',
};

/** Where `npm run build` (scripts/build-ui.js) writes the dashboard: `dist/ui` beside the compiled service. */
export function dashboardDirectory(): string | null {
  const root = packageRoot();
  return root === null ? null : join(root, 'dist', 'ui');
}

/**
 * OP-4: `/ui` serves the built dashboard as static files without a token (the pages hold no data; every API call
 * they make carries the operator's bearer token). Unbuilt (a source checkout before `npm run build`), `/ui` says so.
 */
export async function registerDashboard(fastify: FastifyInstance, directory = dashboardDirectory()): Promise<void> {
  if (directory === null || !existsSync(join(directory, 'index.html'))) {
    fastify.get('/ui', async (_request, reply) =>
      reply
        .code(404)
        .type('text/plain; charset=utf-8')
        .send('The operator dashboard is not built: run `npm run build` (npm start does it when dist/ is stale).\n'),
    );
    return;
  }
  await fastify.register(fastifyStatic, {
    root: directory,
    // Without the slash, so `/ui` redirects to `/ui/` (the page's relative links need it).
    prefix: '/ui',
    // The API documentation registers its own static files; this one must not claim reply.sendFile too.
    decorateReply: false,
    redirect: true,
    index: ['index.html'],
    dotfiles: 'deny',
    cacheControl: true,
    maxAge: 0,
    setHeaders: (reply) => {
      for (const [name, value] of Object.entries(HEADERS)) reply.header(name, value);
    },
  });
}
