/** What the HTTP thread tells its background thread. */
export type ToBackground = { type: 'appended' } | { type: 'stop' };

/** What the background thread tells the HTTP thread. */
export type FromBackground =
  | { type: 'ready'; running: string[] }
  | { type: 'failing'; failing: Array<{ name: string; error: string }> }
  | { type: 'decided'; occurrenceIds: string[] }
  | { type: 'folded'; projection: string };
