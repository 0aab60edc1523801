// Authentication and access lists against real nginx: basic (htpasswd and auth-map), external auth_request with
// signin redirect and copied headers, allow/deny lists with and without forwarded headers, satisfy, fail closed.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startBackend, type Backend } from '../support/backends.js';
import { get, startPortico, syncCount, until, type Running } from '../support/portico.js';
import { ingress } from '../support/objects.js';
import { backendObjects, configMap, manifestFolder, type ManifestDir } from '../support/manifests.js';
import type { Secret } from '../../src/model/input.js';

const P = 'nginx.ingress.kubernetes.io';
// openssl passwd -apr1 -salt abcdefgh secret1; {SHA} of secret2; openssl passwd -6 -salt saltsalt secret3.
const APR1 = 'ann:$apr1$abcdefgh$paCto.rW8wn6thJ8b0QQY.';
const SHA = 'bob:{SHA}xjbo4jj9evl+LlAPjG8PTAvtr7A=';
const SHA512 = 'cy:$6$saltsalt$427Ih8OCXT0ZLlA54sxYVJ171eJSor05utltHZu6DBBikZuKupsPAtf/DdKbbZ8SHwuC6Y4dlKgTCbWDY5XGv0';
const basic = (user: string, pass: string): Record<string, string> => ({ authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` });
const secret = (name: string, stringData: Record<string, string>, namespace = 'default'): Secret => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, stringData });

/** An auth service: `Bearer good` → 200 with X-User (and a cookie, except on /cached); `Bearer forbidden` → 403; else 401. */
async function startAuth(): Promise<{ port: number; server: Server; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    if (seen.length < 10_000) seen.push({ ...req.headers, 'x-test-method': req.method, 'x-test-url': req.url });
    const a = req.headers.authorization;
    // nginx never caches a response that sets a cookie: /cached answers without one.
    const cookie = req.url?.startsWith('/cached') ? {} : { 'set-cookie': 'session=s1; Path=/' };
    if (a === 'Bearer good') res.writeHead(200, { 'x-user': 'alice', 'x-email': 'alice@example.test', ...cookie });
    else res.writeHead(a === 'Bearer forbidden' ? 403 : 401);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server, seen };
}

void describe('authentication and access lists (real nginx, 0700 work dir)', () => {
  let dir: ManifestDir;
  let portico: Running;
  let echo: Backend;
  let auth: Awaited<ReturnType<typeof startAuth>>;
  const ing = (name: string, annotations: Record<string, string>) =>
    ingress(name, { host: `${name}.test`, className: 'portico', annotations, paths: [{ path: '/', type: 'Prefix', service: 'echo' }] });
  const ingresses = () => [
    ing('basic', { [`${P}/auth-type`]: 'basic', [`${P}/auth-secret`]: 'htpasswd', [`${P}/auth-realm`]: 'Portico Test' }),
    ing('map', { [`${P}/auth-type`]: 'basic', [`${P}/auth-secret`]: 'users', [`${P}/auth-secret-type`]: 'auth-map' }),
    ing('missing', { [`${P}/auth-type`]: 'basic', [`${P}/auth-secret`]: 'no-such-secret' }),
    ing('malformed', { [`${P}/auth-type`]: 'basic', [`${P}/auth-secret`]: 'bad' }),
    ing('cross', { [`${P}/auth-type`]: 'basic', [`${P}/auth-secret`]: 'other/htpasswd' }),
    ing('digest', { [`${P}/auth-type`]: 'digest', [`${P}/auth-secret`]: 'htpasswd' }),
    ing('ext', {
      [`${P}/auth-url`]: `http://127.0.0.1:${auth.port}/check?x=1`,
      [`${P}/auth-signin`]: 'https://login.test/start',
      [`${P}/auth-response-headers`]: 'X-User, X-Email',
      [`${P}/auth-proxy-set-headers`]: 'auth-headers',
      [`${P}/auth-method`]: 'POST',
    }),
    ing('cached', { [`${P}/auth-url`]: `http://127.0.0.1:${auth.port}/cached`, [`${P}/auth-cache-key`]: '$http_authorization', [`${P}/auth-cache-duration`]: '200 1m' }),
    ing('allow', { [`${P}/whitelist-source-range`]: '10.0.0.0/8, 2001:db8::/32' }),
    ing('allowme', { [`${P}/allowlist-source-range`]: '127.0.0.1/32' }),
    ing('deny', { [`${P}/denylist-source-range`]: '127.0.0.0/8, 203.0.113.0/24' }),
    ing('any', { [`${P}/allowlist-source-range`]: '127.0.0.1', [`${P}/satisfy`]: 'any', [`${P}/auth-type`]: 'basic', [`${P}/auth-secret`]: 'htpasswd' }),
    ing('all', { [`${P}/allowlist-source-range`]: '127.0.0.1', [`${P}/auth-type`]: 'basic', [`${P}/auth-secret`]: 'htpasswd' }),
  ];
  const secrets = (htpasswd: string) => [
    secret('htpasswd', { auth: htpasswd }),
    secret('htpasswd', { auth: `${APR1}\n` }, 'other'),
    secret('users', { dan: '$apr1$abcdefgh$paCto.rW8wn6thJ8b0QQY.' }),
    secret('bad', { auth: 'eve:password-in-clear\n' }),
  ];

  before(async () => {
    dir = await manifestFolder();
    echo = await startBackend('echo');
    auth = await startAuth();
    await dir.write('backends.json', [...backendObjects('echo', echo.port), configMap('auth-headers', { 'X-Tenant': 'blue' }), configMap('portico', {})]);
    await dir.write('secrets.json', secrets(`${APR1}\n${SHA}\r\n# comment\n${SHA512}\n`));
    await dir.write('ingresses.json', ingresses());
    portico = await startPortico(['--manifests', dir.dir, '--configmap', 'default/portico']);
    await until('ingresses served', async () => (await get(portico.http, 'allowme.test', '/')).status === 200, 20_000);
  });

  after(async () => {
    await portico?.stop();
    await echo?.close();
    auth?.server.closeAllConnections();
    auth?.server.close();
    await dir?.remove();
  });

  void it('basic: 401 with the realm without credentials, 200 with apr1, {SHA} and $6$ users', async () => {
    const r = await get(portico.http, 'basic.test', '/');
    assert.equal(r.status, 401);
    assert.equal(r.headers['www-authenticate'], 'Basic realm="Portico Test"');
    assert.equal((await get(portico.http, 'basic.test', '/', { headers: basic('ann', 'wrong') })).status, 401);
    assert.equal((await get(portico.http, 'basic.test', '/', { headers: basic('ann', 'secret1') })).status, 200);
    assert.equal((await get(portico.http, 'basic.test', '/', { headers: basic('bob', 'secret2') })).status, 200);
    assert.equal((await get(portico.http, 'basic.test', '/', { headers: basic('cy', 'secret3') })).status, 200);
    assert.equal((await get(portico.http, 'map.test', '/', { headers: basic('dan', 'secret1') })).status, 200);
    assert.equal((await get(portico.http, 'map.test', '/', { headers: basic('ann', 'secret1') })).status, 401);
  });

  void it('fails closed with 503 and a warning: missing Secret, malformed Secret, another namespace; digest refused', async () => {
    for (const host of ['missing.test', 'malformed.test', 'cross.test']) assert.equal((await get(portico.http, host, '/', { headers: basic('ann', 'secret1') })).status, 503, host);
    const warned = (what: string) => portico.output.some((l) => l.includes('"level":40') && l.includes(what));
    assert.ok(warned('Ingress default/missing metadata.annotations[nginx.ingress.kubernetes.io/auth-secret]: Secret default/no-such-secret not found; the paths of this Ingress answer 503'));
    assert.ok(warned('Secret default/bad key auth user \\"eve\\": not a password hash'));
    assert.ok(warned('Secret other/htpasswd is in another namespace'));
    assert.ok(!portico.output.some((l) => l.includes('password-in-clear')), 'Secret text never logged');
    assert.equal((await get(portico.http, 'digest.test', '/')).status, 404, 'never served without its protection');
    assert.ok(warned('digest authentication is not supported'));
  });

  void it('htpasswd files are 0640 in the work dir (workers read, never write), one per Ingress; a Secret change needs no reload', async () => {
    const files = readdirSync(join(portico.workDir, 'auth')).sort();
    assert.deepEqual(files, ['default.all.htpasswd', 'default.any.htpasswd', 'default.basic.htpasswd', 'default.map.htpasswd']);
    for (const f of files) assert.equal(statSync(join(portico.workDir, 'auth', f)).mode & 0o777, 0o640);
    const reloads = syncCount(portico.output, 'reload');
    await dir.write('secrets.json', secrets(`${SHA}\n`));
    await until('ann is gone', async () => (await get(portico.http, 'basic.test', '/', { headers: basic('ann', 'secret1') })).status === 401);
    assert.equal((await get(portico.http, 'basic.test', '/', { headers: basic('bob', 'secret2') })).status, 200);
    assert.equal(syncCount(portico.output, 'reload'), reloads, 'no reload for a changed htpasswd Secret');
  });

  void it('external auth: 200 copies response headers upstream and the cookie to the client; 401 redirects to signin; 403 stays', async () => {
    const ok = await get(portico.http, 'ext.test', '/path?q=1', { headers: { authorization: 'Bearer good' } });
    assert.equal(ok.status, 200);
    const upstream = (JSON.parse(ok.body) as { headers: Record<string, string> }).headers;
    assert.equal(upstream['x-user'], 'alice');
    assert.equal(upstream['x-email'], 'alice@example.test');
    assert.equal(upstream['x-forwarded-host'], 'ext.test', 'the default proxy headers are repeated');
    assert.deepEqual(ok.headers['set-cookie'], ['session=s1; Path=/']);
    const sent = auth.seen.at(-1)!;
    assert.equal(sent['x-test-method'], 'POST');
    assert.equal(sent['x-test-url'], '/check?x=1');
    assert.equal(sent['x-original-url'], 'http://ext.test/path?q=1');
    assert.equal(sent['x-tenant'], 'blue');
    assert.equal(sent.host, `127.0.0.1:${auth.port}`);
    const no = await get(portico.http, 'ext.test', '/path?q=1');
    assert.equal(no.status, 302);
    assert.equal(no.headers.location, 'https://login.test/start?rd=http://ext.test%2Fpath%3Fq%3D1');
    assert.equal((await get(portico.http, 'ext.test', '/', { headers: { authorization: 'Bearer forbidden' } })).status, 403);
  });

  void it('auth-cache-key caches the verdict of the auth service', async () => {
    const before = auth.seen.filter((h) => h['x-test-url'] === '/cached').length;
    for (let i = 0; i < 3; i++) assert.equal((await get(portico.http, 'cached.test', '/', { headers: { authorization: 'Bearer good' } })).status, 200);
    assert.equal(auth.seen.filter((h) => h['x-test-url'] === '/cached').length, before + 1);
    assert.equal((await get(portico.http, 'cached.test', '/', { headers: { authorization: 'Bearer other' } })).status, 401);
  });

  void it('access lists: 403 outside the allow list and inside the deny list; satisfy any and all', async () => {
    assert.equal((await get(portico.http, 'allow.test', '/')).status, 403);
    assert.equal((await get(portico.http, 'allowme.test', '/')).status, 200);
    assert.equal((await get(portico.http, 'deny.test', '/')).status, 403);
    assert.equal((await get(portico.http, 'any.test', '/')).status, 200, 'satisfy any: an allowed address suffices');
    assert.equal((await get(portico.http, 'all.test', '/')).status, 401, 'satisfy all: credentials still needed');
    assert.equal((await get(portico.http, 'all.test', '/', { headers: basic('bob', 'secret2') })).status, 200);
    // Without use-forwarded-headers X-Forwarded-For is the client's word only.
    assert.equal((await get(portico.http, 'allow.test', '/', { headers: { 'x-forwarded-for': '10.1.2.3' } })).status, 403);
  });

  void it('use-forwarded-headers: X-Forwarded-For is the client address the lists check', async () => {
    await dir.write('backends.json', [...backendObjects('echo', echo.port), configMap('auth-headers', { 'X-Tenant': 'blue' }), configMap('portico', { 'use-forwarded-headers': 'true' })]);
    // Three in a row: during the reload an old worker may still accept a connection and answer from the old configuration.
    const honoured = async () => (await get(portico.http, 'allow.test', '/', { headers: { 'x-forwarded-for': '10.1.2.3' } })).status === 200;
    await until('forwarded headers honoured', async () => (await honoured()) && (await honoured()) && honoured(), 20_000);
    assert.equal((await get(portico.http, 'allow.test', '/', { headers: { 'x-forwarded-for': '2001:db8::7' } })).status, 200);
    assert.equal((await get(portico.http, 'allow.test', '/', { headers: { 'x-forwarded-for': '192.0.2.1' } })).status, 403);
    assert.equal((await get(portico.http, 'deny.test', '/', { headers: { 'x-forwarded-for': '198.51.100.1' } })).status, 200);
    assert.equal((await get(portico.http, 'deny.test', '/', { headers: { 'x-forwarded-for': '203.0.113.5' } })).status, 403);
  });
});
