/**
 * Errors a user can act on, by name: one line, no stack. Anything else is a bug and keeps its stack.
 * 1 is reserved for what api.md gives it (violations found, a refusal of the command); 2 means nothing was done or
 * nothing could be checked, so a script never mistakes "could not verify" for "tampered".
 */
const EXIT_CODES: Record<string, number> = {
  UsageError: 2,
  ConfigError: 2,
  EmbeddedStoreLocked: 1,
  StoreServed: 1,
  StoreUnavailable: 1,
  ApplyRefused: 1,
  ServiceUnreachable: 1,
  WhyRefused: 1,
  // audit verify: nothing could be checked, which 1 (violations found) must not be mistaken for
  NoStoreHere: 2,
  NotVerified: 2,
  // audit verify stopped before the log's head and reported nothing: it could not verify, it found nothing wrong
  LogHeldBack: 2,
};

/** undefined: not an error a user can act on. */
export function exitCodeFor(error: unknown): number | undefined {
  const code = EXIT_CODES[(error as Error | null)?.name ?? ''];
  if (code !== undefined) return code;
  return (error as NodeJS.ErrnoException | null)?.code === 'EADDRINUSE' ? 1 : undefined;
}
