/** A CLI refusal as people read it: one line, never a stack trace. */
export function expectOneLine(text: string): void {
  expect(text.trimEnd().split('\n')).toHaveLength(1);
  expect(text).not.toMatch(/\n\s+at /); // no stack trace
}
