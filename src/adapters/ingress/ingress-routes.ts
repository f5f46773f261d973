import { Inject, Injectable } from '@nestjs/common';
import type { IngressRouteClaims } from '../../domain/ports/ingress-routes.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';

/**
 * The global ingress path `POST /v1/ingress/{sourceId}` carries no tenant (the provider knows only a
 * URL), so each source id belongs to exactly one tenant, claimed when that tenant first creates it.
 * A second tenant creating the same id gets 409 `source_id_unavailable`. This is the one place where
 * tenants can notice each other, and all it says is "this id is taken": no owner, no definition, no
 * keys. The alternative (tenant in the ingress URL) would leak tenant names to every provider.
 * A claim outlives a failed creation (the tenant may retry) and is never released.
 */
@Injectable()
export class IngressRoutes implements IngressRouteClaims {
  constructor(@Inject(SQL_CLIENT) private readonly sql: SqlClient) {}

  /**
   * Claims `sourceId` for `tenant`; true when it is (now or already) the tenant's. Two statements on
   * purpose: after a concurrent claim commits, only a new statement's snapshot sees the winner's row.
   */
  async claim(sourceId: string, tenant: string): Promise<boolean> {
    await this.sql.query(
      'INSERT INTO ingress_routes (source_id, tenant) VALUES ($1, $2) ON CONFLICT (source_id) DO NOTHING',
      [sourceId, tenant],
    );
    return (await this.owner(sourceId)) === tenant;
  }

  async owner(sourceId: string): Promise<string | null> {
    const result = await this.sql.query<{ tenant: string }>('SELECT tenant FROM ingress_routes WHERE source_id = $1', [
      sourceId,
    ]);
    return result.rows[0]?.tenant ?? null;
  }
}
