// ingress-nginx e2e defaultbackend/with_hosts.go: an Ingress with a default backend and a rule host without paths
// serves that host from its default backend, with its annotations.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, startSuite, type Suite } from '../harness.js';

void describe('defaultbackend/with_hosts.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite();
  });
  after(() => s.stop());

  test('should apply the annotation to the default backend', async () => {
    const ing = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'default-backend-annotations', namespace: 'default', annotations: ann({ 'proxy-buffer-size': '8k' }) },
      spec: { ingressClassName: 'portico', defaultBackend: { service: { name: 'echo', port: { number: 80 } } }, rules: [{ host: 'foo.com' }] },
    };
    await s.put('ingress.json', [ing], async () => (await s.get('foo.com', '/')).status === 200);
    const r = await s.get('foo.com', '/');
    assert.equal(r.status, 200);
    assert.equal(r.headers['x-backend'], 'echo');
    // A response header above the 4k default buffer and within 8k comes through (nginx answers 502 otherwise).
    const big = await s.get('foo.com', `/?location=${'x'.repeat(6000)}`);
    assert.equal(big.status, 200);
  });
});
