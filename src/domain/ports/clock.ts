/**
 * Where schedulers and windows read "now". Production uses the database clock (SC-6,
 * ARCHITECTURE decision 5), so a jump of the host clock neither duplicates nor skips an instant;
 * tests inject a clock they move by hand.
 */
export interface Clock {
  now(): Promise<Date>;
}
