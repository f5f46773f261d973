import { parentPort } from 'node:worker_threads';
import { LogAuditor } from '../../domain/audit/log-audit.js';
import type { FromLogPass, ToLogPass } from './audit-log-pass.js';

/** The log pass's thread (ThreadLogChecker): every page checked in order, an answer per page, the summary at the end. */
const port = parentPort;
if (!port) throw new Error('audit-log-pass-thread runs only as a worker thread');
// Upcast on the sending side: an event without an entry in `upcasts` is seen by the replay as stored.
const auditor = new LogAuditor();
const answer = (message: FromLogPass) => port.postMessage(message);
port.on('message', (message: ToLogPass) => {
  if (message.type === 'end') return answer({ type: 'summary', summary: auditor.summary() });
  const upcasts = new Map(message.upcasts);
  message.events.forEach((event, index) => auditor.check(event, upcasts.get(index)));
  answer({ type: 'checked' });
});
