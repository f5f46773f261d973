import { h } from '../dom.js';
import { claimsOf, currentToken, forgetToken, saveToken } from '../token.js';

/** Token entry: `npx reveille token` mints one in dev mode; in production the operator's identity provider does. */
export function tokenPage(message?: string): HTMLElement {
  const input = h('textarea', {
    id: 'token-input',
    rows: 5,
    spellcheck: 'false',
    autocomplete: 'off',
    placeholder: 'eyJhbGciOi…',
    'aria-label': 'Bearer token',
  }) as HTMLTextAreaElement;
  const error = h('p', { class: 'error', id: 'token-error', role: 'alert' });
  const form = h(
    'form',
    {
      id: 'token-form',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const problem = saveToken(input.value);
        if (problem !== null) {
          error.textContent = problem;
          return;
        }
        location.hash = '#/health';
      },
    },
    h('label', { for: 'token-input' }, 'Bearer token (JWT with scopes operator:read, operator:recover, audit:read)'),
    input,
    h('div', { class: 'buttons' }, h('button', { type: 'submit', id: 'token-save' }, 'Use this token')),
    error,
  );
  const token = currentToken();
  const claims = token === null ? null : claimsOf(token);
  return h(
    'div',
    { class: 'token-page' },
    h('h1', {}, 'Operator token'),
    message ? h('p', { class: 'error', role: 'alert' }, message) : null,
    h(
      'p',
      {},
      'The dashboard calls the read API with your bearer token. It is kept in this tab only (sessionStorage) and sent to this service only. In dev mode, mint one with ',
      h('code', {}, 'npx reveille token --tenant <tenant>'),
      '.',
    ),
    token !== null
      ? h(
          'div',
          { class: 'current-token' },
          h(
            'p',
            {},
            'Current token: tenant ',
            h('strong', {}, String(claims?.tenant ?? '?')),
            ', scopes ',
            h('code', {}, String(claims?.scope ?? '?')),
            typeof claims?.exp === 'number' ? `, expires ${new Date(claims.exp * 1000).toISOString()}` : '',
          ),
          h(
            'button',
            {
              type: 'button',
              id: 'token-forget',
              onclick: () => {
                forgetToken();
                location.hash = '#/token';
                location.reload();
              },
            },
            'Forget token',
          ),
        )
      : null,
    form,
  );
}
