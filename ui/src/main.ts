import { ApiError, NoToken } from './api.js';
import { h } from './dom.js';
import { currentRoute, onRefresh, type Route } from './router.js';
import { claimsOf, currentToken } from './token.js';
import { pages } from './pages/index.js';
import { tokenPage } from './pages/token-page.js';

const view = document.getElementById('view')!;
const who = document.getElementById('who')!;
/** A newer navigation wins: an answer for a page the operator already left is dropped. */
let drawn = 0;

function pageFor(route: Route): ((route: Route) => Promise<Node>) | null {
  const [first = 'health', ...rest] = route.segments;
  // Own keys only: `#/constructor` must not find Object.prototype's.
  const byArity = Object.hasOwn(pages, first) ? pages[first] : undefined;
  return byArity && Object.hasOwn(byArity, rest.length) ? byArity[rest.length]! : null;
}

function failure(error: unknown): Node {
  if (error instanceof NoToken) return tokenPage();
  if (error instanceof ApiError && error.status === 401)
    return tokenPage(`The service refused the token (${error.message}). Paste a new one.`);
  if (error instanceof ApiError && error.status === 403)
    return h(
      'div',
      { class: 'error', role: 'alert' },
      h('h1', {}, 'Not allowed'),
      `The token lacks a scope this page needs (${error.message}).`,
    );
  if (error instanceof ApiError && error.status === 404)
    return h(
      'div',
      { class: 'error', role: 'alert' },
      h('h1', {}, 'Not found'),
      'Nothing with this id in your tenant.',
    );
  return h(
    'div',
    { class: 'error', role: 'alert' },
    h('h1', {}, 'Could not load this page'),
    String(error instanceof Error ? error.message : error),
  );
}

function showWho(): void {
  const token = currentToken();
  const claims = token === null ? null : claimsOf(token);
  who.replaceChildren(
    token === null
      ? h('a', { href: '#/token' }, 'Enter token')
      : h('a', { href: '#/token', title: 'Token' }, `tenant ${String(claims?.tenant ?? '?')}`),
  );
}

async function draw(): Promise<void> {
  const mine = ++drawn;
  showWho();
  const route = currentRoute();
  if (route.segments[0] === 'token' || currentToken() === null) {
    view.replaceChildren(tokenPage());
    document.title = 'Token · Reveille';
    return;
  }
  const page = pageFor(route);
  if (!page) {
    view.replaceChildren(
      h('div', { class: 'error' }, h('h1', {}, 'No such page'), h('a', { href: '#/health' }, 'Trigger health')),
    );
    return;
  }
  view.setAttribute('aria-busy', 'true');
  let content: Node;
  try {
    content = await page(route);
  } catch (error) {
    content = failure(error);
  }
  if (mine !== drawn) return;
  view.replaceChildren(content);
  view.removeAttribute('aria-busy');
  const heading = view.querySelector('h1')?.textContent;
  document.title = heading ? `${heading} · Reveille` : 'Reveille';
  for (const item of document.querySelectorAll('nav.main a')) {
    const target = item.getAttribute('href')?.slice(2).split(/[/?]/)[0];
    item.classList.toggle('current', target === (route.segments[0] ?? 'health'));
  }
}

onRefresh(() => void draw());
window.addEventListener('hashchange', () => void draw());
void draw();
