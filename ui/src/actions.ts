import { ApiError, apiPath, newIdempotencyKey, send } from './api.js';
import { type Child, h, route, withQuery } from './dom.js';
import { refresh } from './router.js';
import type { RecoveryAction } from './types.js';

const MAX_REASON = 2000;

/**
 * A write form: one Idempotency-Key per form, so a second click after a lost answer replays the first write
 * instead of recording a second one (SEC-3); a new key only once the page is drawn again.
 */
function writeForm(options: {
  id: string;
  label: string;
  method: 'POST' | 'PUT';
  path: string;
  extra?: { name: string; label: string; placeholder: string };
}): HTMLElement {
  const key = newIdempotencyKey();
  const reason = h('input', {
    name: 'reason',
    required: true,
    maxlength: MAX_REASON,
    placeholder: 'reason (recorded in the log)',
    'aria-label': `reason to ${options.label}`,
  }) as HTMLInputElement;
  const extra = options.extra
    ? (h('input', {
        name: options.extra.name,
        placeholder: options.extra.placeholder,
        'aria-label': options.extra.label,
      }) as HTMLInputElement)
    : null;
  const status = h('span', { class: 'form-status', role: 'status' });
  const button = h('button', { type: 'submit' }, options.label) as HTMLButtonElement;
  return h(
    'form',
    {
      class: 'action-form',
      id: options.id,
      onsubmit: async (event: Event) => {
        event.preventDefault();
        if (!/\S/.test(reason.value)) {
          status.textContent = 'A reason is required.';
          return;
        }
        button.disabled = true;
        status.textContent = 'Sending…';
        const body: Record<string, unknown> = { reason: reason.value };
        if (extra && options.extra) body[options.extra.name] = extra.value === '' ? null : extra.value;
        try {
          await send(options.method, options.path, body, key);
          status.textContent = 'Done.';
          refresh();
        } catch (error) {
          button.disabled = false;
          status.textContent = error instanceof ApiError ? `Refused: ${error.message}` : `Failed: ${String(error)}`;
        }
      },
    },
    extra,
    reason,
    button,
    status,
  );
}

/** EX-4: POST /v1/operator/executions/{id}/recover with a reason (scope operator:recover). */
export const recoverForm = (executionId: string) =>
  writeForm({
    id: `recover-${executionId}`,
    label: 'Recover',
    method: 'POST',
    path: apiPath(['operator', 'executions', executionId, 'recover']),
  });

/**
 * OP-1's recovery actions for one Trigger. Paths are built here from the Trigger id and the action name the
 * dashboard knows; an href from the API is shown, never followed or fetched.
 */
export function recoveryControls(triggerId: string, actions: RecoveryAction[], inline: boolean): Child[] {
  return actions.map((action) => {
    switch (action.action) {
      case 'recover_dead_letters':
        return h(
          'div',
          { class: 'action' },
          h('a', { href: withQuery(route('dead-letters'), { triggerId }) }, 'Recover dead letters…'),
        );
      case 'release':
      case 'dismiss':
        return inline
          ? writeForm({
              id: `${action.action}-held`,
              label: action.action === 'release' ? 'Release held range' : 'Dismiss held range',
              method: 'POST',
              path: apiPath(['operator', 'triggers', triggerId, 'schedule', action.action]),
            })
          : h(
              'div',
              { class: 'action' },
              h('a', { href: route('triggers', triggerId) }, `${action.action} held range…`),
            );
      case 'set_poll_cursor':
        return inline
          ? writeForm({
              id: 'set-poll-cursor',
              label: 'Set poll cursor',
              method: 'PUT',
              path: apiPath(['operator', 'triggers', triggerId, 'poll-cursor']),
              extra: { name: 'cursor', label: 'new poll cursor', placeholder: 'cursor (empty: from the start)' },
            })
          : h('div', { class: 'action' }, h('a', { href: route('triggers', triggerId) }, 'set poll cursor…'));
      default:
        return h('div', { class: 'action' }, h('code', {}, `${action.action}: ${action.method} ${action.href}`));
    }
  });
}
