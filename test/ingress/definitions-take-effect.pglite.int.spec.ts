import { newKey, startTestApp, type TestApp } from '../support/app.js';
import { definitionsTakeEffectSuite, type Service } from './definitions-take-effect.shared.js';

describe('definitions take effect at once on embedded PGlite (read models folded on the HTTP loop)', () => {
  let t: TestApp;
  let service: Service;

  beforeAll(async () => {
    t = await startTestApp('pglite');
    const token = await t.token({ tenant: 'tenant-a' });
    service = {
      baseUrl: t.baseUrl,
      call: (method, url, body) => t.request({ method, url, body, token, key: newKey() }),
    };
  });
  afterAll(async () => {
    await t?.close();
  });

  definitionsTakeEffectSuite(() => service);
});
