import { Inject, Injectable } from '@nestjs/common';
import type { IngressRouteClaims } from '../../domain/ports/ingress-routes.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';

/**
 * A tenant in the ingress URL would leak tenant names to every provider, so a source id belongs to the
 * tenant that first claimed it: the one place tenants notice each other, and all it says is "taken".
 */
@Injectable()
export class IngressRoutes implements IngressRouteClaims {
  constructor(@Inject(SQL_CLIENT) private readonly sql: SqlClient) {}

  /** Two statements on purpose: after a concurrent claim commits, only a new snapshot sees the winner's row. */
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
