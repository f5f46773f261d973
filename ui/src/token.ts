/**
 * The operator's bearer token, pasted once per browser tab: sessionStorage ends with the tab, and nothing is
 * sent anywhere but this origin's API (the page's Content-Security-Policy allows no other).
 */
const KEY = 'reveille.token';
/** A JWT is three base64url parts; far longer is not a token anyone pasted on purpose. */
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const MAX_LENGTH = 8192;

export const currentToken = (): string | null => sessionStorage.getItem(KEY);

/** Stores a trimmed token (a leading `Bearer ` is dropped); answers an error text for anything not a JWT. */
export function saveToken(input: string): string | null {
  const token = input.trim().replace(/^Bearer\s+/i, '');
  if (token.length === 0) return 'Paste a token first.';
  if (token.length > MAX_LENGTH || !JWT.test(token)) return 'That is not a JWT (three base64url parts).';
  sessionStorage.setItem(KEY, token);
  return null;
}

export const forgetToken = (): void => sessionStorage.removeItem(KEY);

export interface TokenClaims {
  tenant?: unknown;
  scope?: unknown;
  sub?: unknown;
  exp?: unknown;
}

/** What the token says about itself, for display only (the service verifies it on every call). */
export function claimsOf(token: string): TokenClaims | null {
  try {
    const part = token.split('.')[1] ?? '';
    const base64 = part.replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const claims: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return typeof claims === 'object' && claims !== null ? (claims as TokenClaims) : null;
  } catch {
    return null;
  }
}
