/** Who is calling, from a verified token: every command and read is scoped to `tenant`. */
export interface Principal {
  tenant: string;
  subject: string;
  scopes: ReadonlySet<string>;
  tokenId: string;
}

export const SCOPES = [
  'missions:write',
  'sources:write',
  'triggers:write',
  'occurrences:write',
  'executions:write',
  'operator:read',
  'operator:recover',
  'audit:read',
] as const;
export type Scope = (typeof SCOPES)[number];

export const PRINCIPAL = Symbol('reveille.principal');
