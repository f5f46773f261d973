/** A handler's answer when its status or headers depend on the outcome (202 vs 200, replays). */
export class HttpResult<B = unknown> {
  constructor(
    readonly status: number,
    readonly body: B,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** Where the result interceptor leaves the status for the onSend hook: Nest would otherwise reset it to the route default. */
export const STATUS_OVERRIDE = Symbol('reveille.statusOverride');
