import { body, revise, revised, spec } from './trigger.fixtures.js';

describe('Trigger: the source a webhook Trigger names (WH-6)', () => {
  it('given no such source in the tenant, a webhook Trigger is an invalid definition naming the pointer', () =>
    spec
      .given()
      .when(revise({ sourceDefined: false }))
      .thenRejects('invalid_definition', {
        errors: [{ pointer: '/source/sourceId', message: 'no source "gh" exists in this tenant' }],
      }));

  it('given the source exists, the webhook Trigger is revised', () =>
    spec
      .given()
      .when(revise({ sourceDefined: true }))
      .then([revised(1)]));

  it('given a manual Trigger, no source is asked for', () => {
    const result = spec
      .given()
      .when(revise({ definition: body({ type: 'manual', source: undefined }), sourceDefined: undefined }))
      .result();
    expect(Array.isArray(result) && result.map((e) => e.type)).toEqual(['TriggerRevised']);
  });
});
