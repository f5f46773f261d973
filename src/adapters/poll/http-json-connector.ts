import { pollFailure, readPollPage, type PollFailure } from '../../domain/poll/poll-page.js';
import type { PollConnector, PollCredentials, PollFetch } from '../../domain/ports/poll-connector.js';
import type { PollBinding } from '../../domain/trigger/trigger-blocks.js';

const failed = (failure: PollFailure): PollFetch => ({ ok: false, failure });

class TooLarge extends Error {}

/**
 * `http-json@1` (PO-1..PO-4) over Node's fetch: a GET of `url` with `?<cursorParam>=<cursor>` once a cursor exists.
 * `timeoutSeconds` bounds the whole exchange, body included; the body is read as it streams in and dropped past
 * `maxResponseBytes`, so an endless or huge answer costs at most that much memory. Redirects are not followed:
 * the URL the Trigger names is the one polled, and a bearer secret never travels to another. The secret goes in the
 * Authorization header only; no failure detail quotes a header.
 */
export class HttpJsonConnector implements PollConnector {
  readonly id = 'http-json@1' as const;

  async fetch(binding: PollBinding, cursor: string | null, credentials?: PollCredentials | null): Promise<PollFetch> {
    const url = new URL(binding.url);
    if (cursor !== null && binding.cursorParam !== null) url.searchParams.set(binding.cursorParam, cursor);
    const signal = AbortSignal.timeout(binding.timeoutSeconds * 1000);
    let bytes: Buffer;
    try {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (credentials) headers.authorization = `Bearer ${credentials.bearer}`;
      const response = await fetch(url, { signal, redirect: 'manual', headers });
      if (response.status < 200 || response.status > 299) {
        await response.body?.cancel().catch(() => undefined);
        return failed(pollFailure('http_status', `the upstream answered ${response.status}`));
      }
      const declared = Number(response.headers.get('content-length') ?? Number.NaN);
      if (declared > binding.maxResponseBytes) {
        await response.body?.cancel().catch(() => undefined);
        return failed(tooLarge(binding));
      }
      bytes = await readBounded(response, binding.maxResponseBytes);
    } catch (error) {
      if (error instanceof TooLarge) return failed(tooLarge(binding));
      if (signal.aborted)
        return failed(pollFailure('timeout', `no complete answer within ${binding.timeoutSeconds} s`));
      return failed(
        pollFailure('network', `the upstream could not be reached: ${redacted(causeOf(error), credentials)}`),
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch (error) {
      return failed(pollFailure('not_json', `the answer is not JSON: ${(error as Error).message}`));
    }
    const read = readPollPage(body, binding);
    return read.ok ? { ok: true, page: read.page } : failed(read.failure);
  }
}

const tooLarge = (binding: PollBinding): PollFailure =>
  pollFailure('too_large', `the answer is longer than maxResponseBytes (${binding.maxResponseBytes})`);

async function readBounded(response: Response, max: number): Promise<Buffer> {
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > max) {
      await reader.cancel().catch(() => undefined);
      throw new TooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, length);
}

/** A library's message may quote a header it refused: the secret never reaches the log through a failure detail. */
const redacted = (text: string, credentials: PollCredentials | null | undefined): string =>
  credentials ? text.split(credentials.bearer).join('[redacted]') : text;

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return String(cause?.code ?? cause?.message ?? (error as Error).message ?? error);
}
