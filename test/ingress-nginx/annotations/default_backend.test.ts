// ingress-nginx e2e annotations/default_backend.go: the default-backend annotation answers for a Service without
// endpoints, told the status (X-Code) and the names of the request.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { service } from '../../support/objects.js';
import { ann, echoed, ing, startSuite, type Suite } from '../harness.js';

void describe('annotations/default_backend.go', () => {
  let s: Suite;
  const host = 'default-backend';
  before(async () => {
    s = await startSuite({ objects: [service('invalid')] });
    await s.put('ingresses.json', [ing(host, host, { service: 'invalid', annotations: ann({ 'default-backend': 'echo' }) })], async () => (await s.get(host, '/alma/armud')).status === 200);
  });
  after(() => s.stop());

  test('should use a custom default backend as upstream', async () => {
    const r = await s.get(host, '/alma/armud', { headers: { 'x-request-id': 'something-unique' } });
    assert.equal(r.status, 200);
    const e = echoed(r);
    assert.equal(e.headers['x-code'], '503');
    assert.equal(e.headers['x-ingress-name'], host);
    assert.equal(e.headers['x-service-name'], 'invalid');
    assert.equal(e.headers['x-request-id'], 'something-unique');
  });
});
