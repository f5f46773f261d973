/** Waits until `condition` holds, looking every `everyMs`; fails the test once `timeoutMs` has passed. */
export async function until(
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 15_000,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
