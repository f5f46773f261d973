export const EVENT_STORE = Symbol('EVENT_STORE');
export const CLOCK = Symbol('CLOCK');
export const CAPABILITIES_TOKEN = Symbol('CLAIMED_CAPABILITIES');
export const SOURCE_SECRETS = Symbol('SOURCE_SECRETS');
export const INGRESS_ROUTES = Symbol('INGRESS_ROUTES');
export const DUE_SCHEDULES = Symbol('DUE_SCHEDULES');
export const EXECUTION_WAKEUPS = Symbol('EXECUTION_WAKEUPS');
export const POLL_SECRETS = Symbol('POLL_SECRETS');
