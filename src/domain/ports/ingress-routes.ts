/**
 * The global ingress path `POST /v1/ingress/{sourceId}` carries no tenant, so each source id belongs to
 * exactly one tenant, claimed when that tenant first creates it.
 */
export interface IngressRouteClaims {
  /** Claims `sourceId` for `tenant`; true when it is (now or already) the tenant's. */
  claim(sourceId: string, tenant: string): Promise<boolean>;
}
