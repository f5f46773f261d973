/** The ingress path carries no tenant, so each source id belongs to the one tenant that first created it. */
export interface IngressRouteClaims {
  claim(sourceId: string, tenant: string): Promise<boolean>;
}
