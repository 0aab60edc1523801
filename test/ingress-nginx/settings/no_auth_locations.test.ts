// ingress-nginx e2e settings/no_auth_locations.go: no-auth-locations lets a path of a basic-auth Ingress through
// without credentials.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { ann, echoed, ing, startSuite, type Suite } from '../harness.js';

void describe('settings/no_auth_locations.go', () => {
  let s: Suite;
  const host = 'no-auth-locations';
  const basic = { authorization: `Basic ${Buffer.from('foo:bar').toString('base64')}` };
  before(async () => {
    const hash = execFileSync('openssl', ['passwd', '-apr1', 'bar'], { encoding: 'utf8', timeout: 10_000 }).trim();
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'test-secret', namespace: 'default' }, stringData: { auth: `foo:${hash}\n` } };
    s = await startSuite({ config: { 'no-auth-locations': '/noauth' }, objects: [secret] });
    const annotations = ann({ 'auth-type': 'basic', 'auth-secret': 'test-secret', 'auth-realm': 'test auth' });
    const paths = [
      { path: '/', type: 'Prefix' as const, service: 'echo' },
      { path: '/noauth', type: 'Prefix' as const, service: 'echo' },
    ];
    await s.put('ingress.json', [ing(host, host, { annotations, paths })], async () => (await s.get(host, '/')).status === 401 && (await s.get(host, '/noauth')).status === 200);
  });
  after(() => s.stop());

  test("should return status code 401 when accessing '/' unauthentication", async () => {
    const r = await s.get(host, '/');
    assert.equal(r.status, 401);
    assert.match(r.body, /401 Authorization Required/);
    assert.equal(r.headers['www-authenticate'], 'Basic realm="test auth"');
  });

  test("should return status code 200 when accessing '/'  authentication", async () => {
    const r = await s.get(host, '/', { headers: basic });
    assert.equal(r.status, 200);
    assert.equal(echoed(r).url, '/');
  });

  test("should return status code 200 when accessing '/noauth' unauthenticated", async () => {
    // ingress-nginx's test sends credentials here too; none are needed.
    for (const headers of [basic, {}]) {
      const r = await s.get(host, '/noauth', { headers });
      assert.equal(r.status, 200);
      assert.equal(echoed(r).url, '/noauth');
    }
  });
});
