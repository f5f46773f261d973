/** api.md: claim-next long-polls at most 20 s. Its own file: the configuration reads it without loading the DTO's decorators. */
export const MAX_CLAIM_NEXT_WAIT_SECONDS = 20;
