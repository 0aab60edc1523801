// ingress-nginx e2e endpointslices/longname.go: a Service name of 63 characters (the most a DNS label allows) serves.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backendObjects } from '../../support/manifests.js';
import { ing, startSuite, type Suite } from '../harness.js';

const NAME = 'long-name-foobar-foobar-foobar-foobar-foobar-bar-foo-bar-foobuz';

void describe('endpointslices/longname.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite();
  });
  after(() => s.stop());

  test('should return 200 when service name has max allowed number of characters 63', async () => {
    assert.equal(NAME.length, 63);
    const host = 'longsvcname.foo.com';
    await s.put('long.json', [...backendObjects(NAME, s.echo.port), ing('long', host, { service: NAME })], async () => (await s.get(host, '/')).status === 200);
    const r = await s.get(host, '/');
    assert.equal(r.status, 200);
    assert.equal(r.headers['x-backend'], 'echo');
  });
});
