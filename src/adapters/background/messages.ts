export type ToBackground = { type: 'appended' } | { type: 'stop' };

export type FromBackground =
  | { type: 'ready'; running: string[] }
  | { type: 'failing'; failing: Array<{ name: string; error: string }> }
  | { type: 'decided'; occurrenceIds: string[] }
  | { type: 'folded'; projection: string };
