import { validateSourceDefinition, type SourceDefinition } from './source-definition.js';

const errorsOf = (raw: unknown) => {
  const result = validateSourceDefinition(raw);
  if (result.ok) throw new Error(`expected errors, got ${JSON.stringify(result.value)}`);
  return result.errors;
};
const pointersOf = (raw: unknown) => errorsOf(raw).map((e) => e.pointer);

describe('Source definition (WH-1, WH-4, WH-6, WH-8, WH-10)', () => {
  it('fills every default for a minimal standard-webhooks source', () => {
    const expected: SourceDefinition = {
      scheme: 'standard-webhooks',
      toleranceSeconds: 300,
      maxBodyBytes: 262_144,
      rateLimit: { perSecond: 50, burst: 100 },
      eventTypePointer: '/type',
      deliveryIdFrom: 'header',
      correlationPointer: null,
      schema: { required: [] },
      format: 'json',
    };
    expect(validateSourceDefinition({ scheme: 'standard-webhooks' })).toEqual({ ok: true, value: expected });
  });

  it('keeps a full definition as given and tolerates envelope members', () => {
    const body = {
      expectedRevision: 0,
      reason: 'onboard',
      scheme: 'standard-webhooks',
      toleranceSeconds: 120,
      maxBodyBytes: 65_536,
      rateLimit: { perSecond: 5, burst: 10 },
      eventTypePointer: '/type',
      deliveryIdFrom: 'header',
      correlationPointer: '/metadata/reveille_correlation',
      schema: { required: ['/type', '/id'] },
      format: 'cloudevents',
    };
    const result = validateSourceDefinition(body);
    expect(result.ok && result.value).toEqual({
      scheme: 'standard-webhooks',
      toleranceSeconds: 120,
      maxBodyBytes: 65_536,
      rateLimit: { perSecond: 5, burst: 10 },
      eventTypePointer: '/type',
      deliveryIdFrom: 'header',
      correlationPointer: '/metadata/reveille_correlation',
      schema: { required: ['/type', '/id'] },
      format: 'cloudevents',
    });
  });

  it('lets a partial rateLimit inherit the missing member', () => {
    const result = validateSourceDefinition({ scheme: 'unsigned', rateLimit: { burst: 7 } });
    expect(result.ok && result.value.rateLimit).toEqual({ perSecond: 50, burst: 7 });
  });

  it('accepts an explicit null event type pointer (every delivery is untyped)', () => {
    const result = validateSourceDefinition({ scheme: 'standard-webhooks', eventTypePointer: null });
    expect(result.ok && result.value.eventTypePointer).toBeNull();
  });

  describe('github-hmac-sha256 takes the event type from X-GitHub-Event', () => {
    it('defaults the pointer to null', () => {
      const result = validateSourceDefinition({ scheme: 'github-hmac-sha256' });
      expect(result.ok && result.value.eventTypePointer).toBeNull();
    });
    it('refuses a payload pointer, which would be a second answer', () =>
      expect(pointersOf({ scheme: 'github-hmac-sha256', eventTypePointer: '/action' })).toEqual(['/eventTypePointer']));
  });

  it('reports every problem with its pointer', () =>
    expect(
      pointersOf({
        scheme: 'hmac',
        toleranceSeconds: 0,
        maxBodyBytes: 1_048_577,
        rateLimit: { perSecond: 0, extra: 1 },
        eventTypePointer: 'type',
        deliveryIdFrom: 'body',
        correlationPointer: 7,
        schema: { required: ['/ok', 'nope'] },
        format: 'xml',
        keys: [],
      }).sort(),
    ).toEqual([
      '/correlationPointer',
      '/deliveryIdFrom',
      '/eventTypePointer',
      '/format',
      '/keys',
      '/maxBodyBytes',
      '/rateLimit/extra',
      '/rateLimit/perSecond',
      '/schema/required/1',
      '/scheme',
      '/toleranceSeconds',
    ]));

  it('requires a scheme', () =>
    expect(errorsOf({})).toEqual([
      { pointer: '/scheme', message: 'scheme must be one of "standard-webhooks", "github-hmac-sha256", "unsigned"' },
    ]));

  it('accepts the range ends: tolerance 1..3600, body 1..1 MiB', () => {
    expect(validateSourceDefinition({ scheme: 'unsigned', toleranceSeconds: 1, maxBodyBytes: 1 }).ok).toBe(true);
    expect(validateSourceDefinition({ scheme: 'unsigned', toleranceSeconds: 3600, maxBodyBytes: 1_048_576 }).ok).toBe(
      true,
    );
    expect(pointersOf({ scheme: 'unsigned', toleranceSeconds: 3601, maxBodyBytes: 2.5 })).toEqual([
      '/toleranceSeconds',
      '/maxBodyBytes',
    ]);
  });

  it('WH-10 refuses CloudEvents from an unsigned source', () =>
    expect(pointersOf({ scheme: 'unsigned', format: 'cloudevents' })).toEqual(['/format']));

  it('bounds the schema and drops repeated pointers', () => {
    expect(
      pointersOf({ scheme: 'unsigned', schema: { required: Array.from({ length: 65 }, (_, i) => `/f${i}`) } }),
    ).toEqual(['/schema/required']);
    const result = validateSourceDefinition({ scheme: 'unsigned', schema: { required: ['/a', '/a'] } });
    expect(result.ok && result.value.schema).toEqual({ required: ['/a'] });
  });

  it('refuses a body that is not an object', () =>
    expect(errorsOf([])).toEqual([{ pointer: '', message: 'a source definition must be an object' }]));
});
