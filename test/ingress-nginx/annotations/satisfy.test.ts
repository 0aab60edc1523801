// ingress-nginx e2e annotations/satisfy.go: the satisfy annotation (all or any) between the access checks of an
// Ingress: both values serve a plain Ingress; with an allowlist the client is outside of and valid credentials,
// `all` refuses and `any` serves; with basic auth and auth-url, `any` lets valid basic credentials through and sends
// a client without them to auth-signin.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Secret } from '../../../src/model/input.js';
import { ann, echoed, ing, startSuite, type Suite } from '../harness.js';

// apr1 of the password "pwd" (openssl passwd -apr1 -salt abcdefgh pwd)
const APR1_PWD = '$apr1$abcdefgh$4jHBA1RSKEU7wlB4uJy2Y0';
const basic = (user: string, pass: string): Record<string, string> => ({ authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` });
const secret: Secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'basic-secret', namespace: 'default' }, stringData: { auth: `uname:${APR1_PWD}\n` } };

void describe('annotations/satisfy.go', () => {
  let s: Suite;
  let bun: Server;
  let bunPort = 0;
  before(async () => {
    // httpbun's /basic-auth/U/P: 200 to Basic U:P, else 401
    bun = createServer((req, res) => {
      const m = /^\/basic-auth\/([^/]+)\/([^/?]+)/.exec(req.url ?? '');
      const ok = m !== null && req.headers.authorization === basic(m[1] ?? '', m[2] ?? '')['authorization'];
      res.writeHead(ok ? 200 : 401);
      res.end();
    });
    await new Promise<void>((resolve) => bun.listen(0, '127.0.0.1', resolve));
    bunPort = (bun.address() as AddressInfo).port;
    s = await startSuite({ objects: [secret] });
  });
  after(async () => {
    await s.stop();
    await new Promise<void>((resolve) => {
      bun.closeAllConnections();
      bun.close(() => {
        resolve();
      });
    });
  });

  test('should configure satisfy directive correctly', async () => {
    const host = 'satisfy';
    const acl = 'satisfy-acl';
    // 127.0.0.1 is outside the allowlist; its credentials are valid
    const guarded = (value: string) =>
      ing(acl, acl, { annotations: ann({ satisfy: value, 'whitelist-source-range': '10.0.0.0/8', 'auth-type': 'basic', 'auth-secret': 'basic-secret', 'auth-realm': 'test' }) });
    for (const [value, withCredentials] of [
      ['any', 200],
      ['all', 403],
    ] as const) {
      await s.put('ingresses.json', [ing(host, host, { annotations: ann({ satisfy: value }) }), guarded(value)], async () => {
        const r = await s.get(acl, '/', { headers: basic('uname', 'pwd') });
        return (await s.get(host, '/')).status === 200 && r.status === withCredentials && (r.status !== 200 || echoed(r).id === 'echo');
      });
      const r = await s.get(host, '/');
      assert.equal(r.status, 200);
      assert.equal(echoed(r).headers['host'], host);
      assert.equal((await s.get(acl, '/', { headers: basic('uname', 'pwd') })).status, withCredentials, `satisfy ${value}`);
      // without credentials neither the address nor the password lets the client in
      assert.notEqual((await s.get(acl, '/')).status, 200);
    }
  });

  test('should allow multiple auth with satisfy any', async () => {
    const host = 'auth';
    const annotations = ann({
      'auth-type': 'basic',
      'auth-secret': 'basic-secret',
      'auth-realm': 'test basic auth',
      'auth-url': `http://127.0.0.1:${bunPort}/basic-auth/user/password`,
      'auth-signin': 'http://$host/auth/start',
      satisfy: 'any',
    });
    await s.put('auth.json', [ing(host, host, { annotations })], async () => (await s.get(host, '/', { headers: basic('uname', 'pwd') })).status === 200);
    const ok = await s.get(host, '/', { headers: basic('uname', 'pwd') });
    assert.equal(ok.status, 200);
    assert.equal(echoed(ok).id, 'echo');
    const r = await s.get(host, '/?a=b&c=d');
    assert.equal(r.status, 302);
    assert.equal(r.headers['location'], `http://${host}/auth/start?rd=http://${host}${encodeURIComponent('/?a=b&c=d')}`);
  });
});
