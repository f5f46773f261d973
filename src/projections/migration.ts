/** A forward-only schema change; ids are applied in the order given and never edited once shipped. */
export interface Migration {
  id: string;
  sql: string;
  /**
   * A query answering one row with a boolean `ok`: where it is false the migration is skipped and
   * not recorded, so it is asked again at the next start (a capability of the server, not of the schema).
   */
  onlyIf?: string;
}
