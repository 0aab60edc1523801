// ingress-nginx e2e servicebackend/service_nil_backend.go: a path whose backend is a resource, not a Service, is not
// served (404), and the other Ingresses are.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ing, startSuite, type Suite } from '../harness.js';

void describe('servicebackend/service_nil_backend.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite();
  });
  after(() => s.stop());

  test('should return 404 when backend service is nil', async () => {
    const resource = ing('nilbackend', 'nilbackend.svc.com');
    const path = resource.spec?.rules?.[0]?.http?.paths[0];
    assert.ok(path);
    path.backend = { resource: { apiGroup: 'otherobj.testingress.com', kind: 'Anything', name: 'mytest' } };
    await s.put('ingresses.json', [resource, ing('valid', 'valid.svc.com')], async () => (await s.get('valid.svc.com', '/')).status === 200);
    assert.equal((await s.get('valid.svc.com', '/')).status, 200);
    assert.equal((await s.get('nilbackend.svc.com', '/')).status, 404);
  });
});
