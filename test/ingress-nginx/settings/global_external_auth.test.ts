// ingress-nginx e2e settings/global_external_auth.go: the ConfigMap's global-auth-* keys put every Ingress behind an
// auth service, except no-auth-locations paths and Ingresses that say enable-global-auth: "false".
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ann, echoed, ing, startEcho, startSuite, type Suite } from '../harness.js';
import type { Backend } from '../../support/backends.js';
import { get } from '../../support/portico.js';

/** The auth stand-in: `/status/NNN` answers NNN, anything else 200; every answer sets Foo, Bar and a cookie. */
interface Auth {
  readonly port: number;
  readonly seen: { method: string; url: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

async function startAuth(): Promise<Auth> {
  const seen: Auth['seen'] = [];
  const server: Server = createServer((req, res) => {
    if (seen.length < 10_000) seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const status = /^\/status\/([1-5]\d\d)$/.exec(req.url ?? '')?.[1];
    res.writeHead(status === undefined ? 200 : Number(status), { foo: 'foo-from-auth', bar: 'bar-from-auth', 'set-cookie': 'alma=armud' });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

void describe('settings/global_external_auth.go', () => {
  let s: Suite;
  let auth: Auth;
  const host = 'global-external-auth';
  const url = (path: string) => `http://127.0.0.1:${auth.port}${path}`;
  const denied = () => ({ 'global-auth-url': url('/status/401') });
  const status = async (path: string, opts: Parameters<Suite['get']>[2] = {}) => (await s.get(host, path, opts)).status;
  /** The echo backend's own answer (a 503 or an auth 401 has no JSON body of the echo backend). */
  const served = async (path: string) => {
    const r = await s.get(host, path);
    return r.status === 200 && r.headers['x-backend'] === 'echo';
  };
  const ingresses = (barAnnotations?: Record<string, string>) => [
    ing('foo-ingress', host, { path: '/foo' }),
    ing('bar-ingress', host, { path: '/bar', ...(barAnnotations ? { annotations: barAnnotations } : {}) }),
  ];

  before(async () => {
    auth = await startAuth();
    s = await startSuite();
    await s.put('ingresses.json', ingresses(), async () => (await served('/foo')) && served('/bar'));
    await s.config(denied(), async () => (await status('/foo')) === 401 && (await status('/bar')) === 401);
  });
  after(async () => {
    await s.stop();
    await auth.close();
  });

  test('should return status code 401 when request any protected service', async () => {
    assert.equal(await status('/foo'), 401);
    assert.equal(await status('/bar'), 401);
  });

  test('should return status code 200 when request whitelisted (via no-auth-locations) service and 401 when request protected service', async () => {
    await s.config({ ...denied(), 'no-auth-locations': '/bar' }, () => served('/bar'));
    assert.equal(await status('/foo'), 401);
    assert.ok(await served('/bar'));
    await s.config(denied(), async () => (await status('/bar')) === 401);
  });

  test('should return status code 200 when request whitelisted (via ingress annotation) service and 401 when request protected service', async () => {
    await s.put('ingresses.json', ingresses(ann({ 'enable-global-auth': 'false' })), () => served('/bar'));
    assert.equal(await status('/foo'), 401);
    assert.ok(await served('/bar'));
    await s.put('ingresses.json', ingresses(), async () => (await status('/bar')) === 401);
  });

  test('should still return status code 200 after auth backend is deleted using cache', async () => {
    // An auth service of its own, stopped halfway: the cached 200 answers from then on. Portico refuses a cache key
    // without a variable (ingress-nginx's test uses "foo": one verdict for every client), so the key names the credentials.
    const cached: Backend = await startEcho('auth-cached');
    const cfg = { 'global-auth-url': `http://127.0.0.1:${cached.port}/status/200`, 'global-auth-cache-key': 'foo$http_authorization', 'global-auth-cache-duration': '200 201 401 30m' };
    await s.config(cfg, () => served('/bar'));
    const basic = { authorization: `Basic ${Buffer.from('user:password').toString('base64')}` };
    assert.equal(await status('/bar', { headers: basic }), 200);
    await cached.close();
    await assert.rejects(get(cached.port, 'auth', '/status/200'));
    const r = await s.get(host, '/bar', { headers: basic });
    assert.equal(r.status, 200);
    assert.equal(echoed(r).url, '/bar');
    await s.config(denied(), async () => (await status('/bar')) === 401);
  });

  test('should proxy_method method when global-auth-method is configured', async () => {
    const post = { method: 'POST', body: 'x' };
    const authMethod = async () => ((await status('/foo', post)) === 200 ? auth.seen.at(-1)?.method : undefined);
    // nginx's auth subrequest is a GET by default: first name another method, so that the switch to GET is seen to land.
    await s.config({ 'global-auth-url': url('/ok'), 'global-auth-method': 'PUT' }, async () => (await authMethod()) === 'PUT');
    await s.config({ 'global-auth-url': url('/ok'), 'global-auth-method': 'GET' }, async () => (await authMethod()) === 'GET');
    assert.equal(await authMethod(), 'GET');
  });

  test('should add custom error page when global-auth-signin url is configured', async () => {
    const signin = 'http://foo.com/global-error-page';
    await s.config({ ...denied(), 'global-auth-signin': signin }, async () => (await s.get(host, '/foo')).status === 302);
    const r = await s.get(host, '/foo');
    assert.equal(r.status, 302);
    const location = new URL(String(r.headers['location']));
    assert.equal(`${location.origin}${location.pathname}`, signin);
    assert.equal(location.searchParams.get('rd'), `http://${host}/foo`);
  });

  test('should add auth headers when global-auth-response-headers is configured', async () => {
    const headers = async () => {
      const r = await s.get(host, '/foo');
      return r.status === 200 ? echoed(r).headers : {};
    };
    await s.config({ 'global-auth-url': url('/ok'), 'global-auth-response-headers': 'Foo, Bar' }, async () => (await headers())['foo'] === 'foo-from-auth');
    const h = await headers();
    assert.equal(h['foo'], 'foo-from-auth');
    assert.equal(h['bar'], 'bar-from-auth');
  });

  test('should set request-redirect when global-auth-request-redirect is configured', async () => {
    // Portico's key takes a URL (or path) where ingress-nginx takes any string ("Foo-Redirect" there).
    const redirect = 'https://portico.test/foo-redirect';
    const sent = async () => ((await status('/foo')) === 200 ? auth.seen.at(-1)?.headers['x-auth-request-redirect'] : undefined);
    await s.config({ 'global-auth-url': url('/ok') }, async () => (await sent()) === '/foo');
    await s.config({ 'global-auth-url': url('/ok'), 'global-auth-request-redirect': redirect }, async () => (await sent()) === redirect);
    assert.equal(await sent(), redirect);
  });

  test('should set snippet when global external auth is configured', async () => {
    const sent = async () => ((await status('/foo')) === 200 ? auth.seen.at(-1)?.headers['my-custom-header'] : undefined);
    await s.config({ 'global-auth-url': url('/ok'), 'allow-snippet-annotations': 'true', 'global-auth-snippet': 'proxy_set_header My-Custom-Header 42;' }, async () => (await sent()) === '42');
    assert.equal(await sent(), '42');
  });

  test('user retains cookie by default', async () => {
    const cookieHost = 'global-external-auth-check-cookies';
    await s.config({ 'global-auth-url': url('/cookies/set/alma/armud') });
    await s.put('cookies.json', [ing(cookieHost, cookieHost), ing(`${cookieHost}-error`, cookieHost, { path: '/error' })], async () => {
      const r = await s.get(cookieHost, '/?a=b&c=d');
      return r.status === 200 && r.headers['x-backend'] === 'echo' && auth.seen.at(-1)?.url === '/cookies/set/alma/armud';
    });
    const r = await s.get(cookieHost, '/?a=b&c=d');
    assert.equal(r.status, 200);
    assert.match(String(r.headers['set-cookie']), /alma=armud/);
  });

  test('user does not retain cookie if upstream returns error status code', async () => {
    const r = await s.get('global-external-auth-check-cookies', '/error/status/503?a=b&c=d');
    assert.equal(r.status, 503);
    assert.equal(r.headers['x-backend'], 'echo');
    assert.equal(r.headers['set-cookie'], undefined);
  });

  test('user with global-auth-always-set-cookie key in configmap retains cookie if upstream returns error status code', async () => {
    const answer = () => s.get('global-external-auth-check-cookies', '/error/status/503?a=b&c=d');
    await s.config({ 'global-auth-url': url('/cookies/set/alma/armud'), 'global-auth-always-set-cookie': 'true' }, async () => /alma=armud/.test(String((await answer()).headers['set-cookie'])));
    const r = await answer();
    assert.equal(r.status, 503);
    assert.equal(r.headers['x-backend'], 'echo');
    assert.match(String(r.headers['set-cookie']), /alma=armud/);
  });
});
