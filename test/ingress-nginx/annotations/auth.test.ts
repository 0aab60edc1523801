// ingress-nginx e2e annotations/auth.go: basic auth (htpasswd and auth-map Secrets), external auth (auth-url with
// signin redirect, response headers, proxy-set headers, snippet, cookies, cache, keepalive), read from real answers and
// from what the auth service saw. The auth service stands in for httpbun: /basic-auth/USER/PASS and /cookies/set/K/V.
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { backendObjects, configMap } from '../../support/manifests.js';
import type { Secret } from '../../../src/model/input.js';
import { ann, echoed, ing, startSuite, type Suite } from '../harness.js';

// bcrypt (as ingress-nginx's test writes it, at a lower cost) of the password "bar": crypt(3) with salt $2y$05$abcdefghijklmnopqrstuu.
const BCRYPT_BAR = '$2y$05$abcdefghijklmnopqrstuuUq7qXkDOZJ5Q8HA9wCOH0FErWp6q0b6';
const basic = (user: string, pass: string): Record<string, string> => ({ authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` });
const secret = (name: string, stringData: Record<string, string>): Secret => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'default' }, stringData });

interface AuthBun {
  readonly port: number;
  /** Requests seen (headers plus x-test-url). */
  readonly seen: IncomingHttpHeaders[];
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/**
 * httpbun's two auth endpoints and the cookie backend of the upstream test: /basic-auth/U/P answers 200 to Basic U:P
 * and 401 otherwise; /cookies/set/K/V answers 200 with Set-Cookie K=V; /error answers 503; anything else 200.
 */
async function startAuthBun(): Promise<AuthBun> {
  const seen: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (seen.length < 10_000) seen.push({ ...req.headers, 'x-test-url': url });
    const auth = /^\/basic-auth\/([^/]+)\/([^/?]+)/.exec(url);
    const cookie = /^\/cookies\/set\/([^/]+)\/([^/?]+)/.exec(url);
    if (auth) {
      const ok = req.headers.authorization === basic(auth[1] ?? '', auth[2] ?? '')['authorization'];
      res.writeHead(ok ? 200 : 401, ok ? {} : { 'www-authenticate': 'Basic realm="Fake Realm"' });
    } else if (cookie) res.writeHead(200, { 'set-cookie': `${cookie[1] ?? ''}=${cookie[2] ?? ''}` });
    else res.writeHead(url.startsWith('/error') ? 503 : 200);
    res.end(url.startsWith('/basic-auth') ? '' : 'OK\n');
  });
  let connections = 0;
  server.on('connection', () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

void describe('annotations/auth.go', () => {
  let s: Suite;
  let bun: AuthBun;
  const basicAnn = (name: string, extra: Record<string, string> = {}) => ann({ 'auth-type': 'basic', 'auth-secret': name, 'auth-realm': 'test auth', ...extra });
  const warned = (...parts: string[]) => s.portico.output.some((l) => l.includes('"level":40') && parts.every((p) => l.includes(p)));
  const status = async (host: string, path = '/', headers: Record<string, string> = {}) => (await s.get(host, path, { headers })).status;
  before(async () => {
    bun = await startAuthBun();
    // Snippets as ingress-nginx takes them (--snippet-mode any): the share-vars tests read a variable of their own.
    s = await startSuite({
      args: ['--snippet-mode', 'any', '--annotations-risk-level', 'Critical'],
      config: { 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical' },
      objects: [
        secret('test', { auth: `foo:${BCRYPT_BAR}\n` }),
        secret('test-map', { foo: BCRYPT_BAR }),
        secret('test-invalid', { auth: 'foo:' }),
        configMap('auth-headers', { 'My-Custom-Header': '42' }),
        ...backendObjects('http-cookie-with-error', bun.port),
      ],
    });
  });
  after(async () => {
    await s.stop();
    await bun.close();
  });

  test('should return status code 200 when no authentication is configured', async () => {
    await s.put('auth.json', [ing('auth', 'auth')], async () => (await status('auth')) === 200);
    const r = await s.get('auth', '/');
    assert.equal(r.status, 200);
    assert.equal(echoed(r).headers['host'], 'auth');
  });

  test('should return status code 503 when authentication is configured with an invalid secret', async () => {
    await s.put('auth.json', [ing('auth', 'auth-503', { annotations: basicAnn('something') })], async () => (await status('auth-503')) === 503);
    const r = await s.get('auth-503', '/');
    assert.equal(r.status, 503);
    assert.match(r.body, /503 Service Temporarily Unavailable/);
  });

  test('should return status code 401 when authentication is configured but Authorization header is not configured', async () => {
    await s.put('auth.json', [ing('auth', 'auth-401', { annotations: basicAnn('test') })], async () => (await status('auth-401', '/', basic('foo', 'bar'))) === 200);
    const r = await s.get('auth-401', '/');
    assert.equal(r.status, 401);
    assert.match(r.body, /401 Authorization Required/);
    assert.equal(r.headers['www-authenticate'], 'Basic realm="test auth"');
  });

  test('should return status code 401 when authentication is configured and Authorization header is sent with invalid credentials', async () => {
    await s.put('auth.json', [ing('auth', 'auth-bad', { annotations: basicAnn('test') })], async () => (await status('auth-bad', '/', basic('foo', 'bar'))) === 200);
    const r = await s.get('auth-bad', '/', { headers: basic('user', 'pass') });
    assert.equal(r.status, 401);
    assert.match(r.body, /401 Authorization Required/);
  });

  test('should return status code 401 and cors headers when authentication and cors is configured but Authorization header is not configured', async () => {
    await s.put('auth.json', [ing('auth', 'auth-cors', { annotations: basicAnn('test', { 'enable-cors': 'true' }) })], async () => (await status('auth-cors', '/', basic('foo', 'bar'))) === 200);
    const r = await s.get('auth-cors', '/');
    assert.equal(r.status, 401);
    assert.equal(r.headers['access-control-allow-origin'], '*');
  });

  test('should return status code 200 when authentication is configured and Authorization header is sent', async () => {
    await s.put('auth.json', [ing('auth', 'auth-ok', { annotations: basicAnn('test') })], async () => (await status('auth-ok')) === 401);
    const r = await s.get('auth-ok', '/', { headers: basic('foo', 'bar') });
    assert.equal(r.status, 200);
    assert.equal(echoed(r).headers['host'], 'auth-ok');
  });

  test('should return status code 200 when authentication is configured with a map and Authorization header is sent', async () => {
    await s.put('auth.json', [ing('auth', 'auth-map', { annotations: basicAnn('test-map', { 'auth-secret-type': 'auth-map' }) })], async () => (await status('auth-map')) === 401);
    assert.equal(await status('auth-map', '/', basic('foo', 'bar')), 200);
    assert.equal(await status('auth-map', '/', basic('foo', 'baz')), 401);
  });

  test('should return status code 401 when authentication is configured with invalid content and Authorization header is sent', async () => {
    // Deliberate: a user without a password hash makes the Secret malformed; the paths answer 503 with a Warning
    // naming the Secret (ingress-nginx wrote the line and nginx answered 401 to everyone).
    await s.put('auth.json', [ing('auth', 'auth-invalid', { annotations: basicAnn('test-invalid') })], async () => (await status('auth-invalid', '/', basic('foo', 'bar'))) === 503);
    assert.ok(s.portico.output.some((l) => l.includes('"level":40') && l.includes('Secret default/test-invalid') && l.includes('not a password hash')));
  });

  const extUrl = () => `http://127.0.0.1:${bun.port}/basic-auth/user/password`;
  const seenAfter = (n: number) => bun.seen.slice(n);

  test('should set snippet "proxy_set_header My-Custom-Header 42;" when external auth is configured', async () => {
    const a = ann({ 'auth-url': extUrl(), 'auth-snippet': '\n\t\t\t\tproxy_set_header My-Custom-Header 42;' });
    await s.put('auth.json', [ing('auth', 'auth-snip', { annotations: a })], async () => (await status('auth-snip', '/', basic('user', 'password'))) === 200);
    const n = bun.seen.length;
    assert.equal(await status('auth-snip', '/', basic('user', 'password')), 200);
    assert.deepEqual(
      seenAfter(n).map((h) => h['my-custom-header']),
      ['42'],
    );
  });

  test('should not set snippet "proxy_set_header My-Custom-Header 42;" when external auth is not configured', async () => {
    const a = ann({ 'auth-snippet': '\n\t\t\t\tproxy_set_header My-Custom-Header 42;' });
    await s.put('auth.json', [ing('auth', 'auth-nosnip', { annotations: a })], async () => (await status('auth-nosnip')) === 200);
    const n = bun.seen.length;
    const r = await s.get('auth-nosnip', '/');
    assert.equal(r.status, 200);
    assert.equal(echoed(r).headers['my-custom-header'], undefined);
    assert.equal(bun.seen.length, n, 'no auth request');
  });

  test('should set "proxy_set_header "My-Custom-Header" "42";" when auth-headers are set', async () => {
    const a = ann({ 'auth-url': extUrl(), 'auth-proxy-set-headers': 'default/auth-headers' });
    await s.put('auth.json', [ing('auth', 'auth-headers', { annotations: a })], async () => (await status('auth-headers', '/', basic('user', 'password'))) === 200);
    const n = bun.seen.length;
    assert.equal(await status('auth-headers', '/', basic('user', 'password')), 200);
    assert.deepEqual(
      seenAfter(n).map((h) => h['my-custom-header']),
      ['42'],
    );
  });

  test('should set cache_key when external auth cache is configured', async () => {
    // Deliberate: a cache key without a variable (ingress-nginx's test uses "foo") would give every client the
    // verdict of the first one; it is refused with a Warning and the Ingress is not served. A key naming the
    // client's credentials caches as upstream: the second request is answered from the cache.
    const cached = (key: string) => ann({ 'auth-url': extUrl(), 'auth-cache-key': key, 'auth-cache-duration': '200 202 401 30m' });
    await s.put(
      'auth.json',
      [ing('auth', 'auth-cache', { annotations: cached('foo') })],
      async () => warned('auth-cache-key', 'is not a cache key') && (await status('auth-cache', '/', basic('user', 'password'))) === 404,
    );
    await s.put('auth.json', [ing('auth', 'auth-cache', { annotations: cached('$http_authorization') })], async () => (await status('auth-cache', '/', basic('user', 'password'))) === 200);
    const n = bun.seen.length;
    for (let i = 0; i < 3; i++) assert.equal(await status('auth-cache', '/', basic('user', 'password')), 200);
    assert.equal(bun.seen.length, n, 'answered from the auth cache');
    assert.equal(await status('auth-cache', '/', basic('user', 'other')), 401);
    assert.equal(bun.seen.length, n + 1, 'another key asks the auth service');
  });

  void describe('cookie set by external authentication server', () => {
    const host = 'auth-check-cookies';
    const cookieIngs = (extra: Record<string, string> = {}) => {
      const a = ann({ 'auth-url': `http://127.0.0.1:${bun.port}/cookies/set/alma/armud`, 'auth-signin': 'http://$host/auth/start', ...extra });
      return [ing(host, host, { annotations: a, service: 'http-cookie-with-error' }), ing(`${host}-error`, host, { annotations: a, path: '/error', service: 'http-cookie-with-error' })];
    };
    before(async () => {
      await s.put('auth.json', cookieIngs(), async () => (await status(host, '/error')) === 503 && (await status(host, '/')) === 200);
    });

    test('user retains cookie by default', async () => {
      const r = await s.get(host, '/?a=b&c=d');
      assert.equal(r.status, 200);
      assert.match(String(r.headers['set-cookie']), /alma=armud/);
    });

    test('user does not retain cookie if upstream returns error status code', async () => {
      const r = await s.get(host, '/error?a=b&c=d');
      assert.equal(r.status, 503);
      assert.equal(r.headers['set-cookie'], undefined);
    });

    test('user with annotated ingress retains cookie if upstream returns error status code', async () => {
      await s.put('auth.json', cookieIngs({ 'auth-always-set-cookie': 'true' }), async () => {
        const r = await s.get(host, '/error');
        return r.status === 503 && r.body === 'OK\n' && r.headers['set-cookie'] !== undefined;
      });
      const r = await s.get(host, '/error?a=b&c=d');
      assert.equal(r.status, 503);
      assert.match(String(r.headers['set-cookie']), /alma=armud/);
    });
  });

  /** The Location of the signin redirect ingress-nginx answers for GET /?a=b&c=d on `host`. */
  const signinLocation = (host: string, param: string) => `http://${host}/auth/start?${param}=http://${host}${encodeURIComponent('/?a=b&c=d')}`;
  /** Replaces the Ingress `auth` and waits until a signed-in request passes and reached the auth service with `marker`. */
  const putExternal = async (annotations: Record<string, string>, marker: string, extra: unknown[] = []) => {
    await s.put('auth.json', [ing('auth', 'auth', { annotations: ann(annotations) }), ...extra], async () => {
      const n = bun.seen.length;
      return (await status('auth', '/', basic('user', 'password'))) === 200 && bun.seen.slice(n).some((h) => String(h['x-test-url']).includes(marker));
    });
  };
  /** Signed-in requests through auth-url: [auth requests seen, connections the auth service accepted] during `n` of them. */
  const authTraffic = async (n: number): Promise<[number, number]> => {
    const [seen, conns] = [bun.seen.length, bun.connections()];
    for (let i = 0; i < n; i++) assert.equal(await status('auth', '/', basic('user', 'password')), 200);
    return [bun.seen.length - seen, bun.connections() - conns];
  };

  void describe('when external authentication is configured', () => {
    const base = () => ({ 'auth-url': `${extUrl()}?case=external`, 'auth-signin': 'http://$host/auth/start' });
    before(async () => {
      await putExternal(base(), 'case=external');
    });

    test('should return status code 200 when signed in', async () => {
      const r = await s.get('auth', '/', { headers: basic('user', 'password') });
      assert.equal(r.status, 200);
      assert.equal(echoed(r).headers['host'], 'auth');
    });

    test('should redirect to signin url when not signed in', async () => {
      const r = await s.get('auth', '/?a=b&c=d');
      assert.equal(r.status, 302);
      assert.equal(r.headers['location'], signinLocation('auth', 'rd'));
    });

    test('keeps processing new ingresses even if one of the existing ingresses is misconfigured', async () => {
      const broken = ing('auth', 'auth', { annotations: ann({ ...base(), 'auth-type': 'basic', 'auth-secret': 'something', 'auth-realm': 'test auth' }) });
      await s.put('auth.json', [broken, ing('different', 'different')], async () => (await status('different')) === 200);
      assert.equal(await status('auth', '/', basic('user', 'password')), 503);
      assert.equal(await status('different'), 200);
    });

    test('should overwrite Foo header with auth response', async () => {
      await putExternal({ ...base(), 'auth-url': `${extUrl()}?case=foo`, 'auth-response-headers': 'Foo' }, 'case=foo');
      const r = await s.get('auth', '/', { headers: { ...basic('user', 'password'), foo: 'bar' } });
      assert.equal(r.status, 200);
      // The auth service answered no Foo: the client's Foo: bar never reaches the backend.
      assert.notEqual(echoed(r).headers['foo'], 'bar');
    });

    // Local mode's HTTP listener speaks HTTP/1.1 whatever use-http2 says (it concerns the HTTPS listener), so these
    // run as ingress-nginx's with use-http2 false. "No additional upstream block" is, on the wire, one new connection to
    // the auth service per auth request: nothing is pooled.
    test('should not create additional upstream block when auth-keepalive is not set', async () => {
      await putExternal({ ...base(), 'auth-url': `${extUrl()}?case=unset` }, 'case=unset');
      assert.deepEqual(await authTraffic(4), [4, 4]);
    });

    test('should not create additional upstream block when host part of auth-url contains a variable', async () => {
      // http://$host/path: the auth request goes to the request's own host, where an unprotected /path answers it.
      const own = ing('auth-path', 'auth', { path: '/path', type: 'Exact' });
      await s.put('auth.json', [ing('auth', 'auth', { annotations: ann({ ...base(), 'auth-url': 'http://$host/path', 'auth-keepalive': '123' }) }), own], async () => {
        const n = s.echo.seen.length;
        return (await status('auth')) === 200 && s.echo.seen.slice(n).some((e) => e.url === '/path');
      });
      const n = s.echo.seen.length;
      assert.equal(await status('auth', '/?x=1'), 200);
      const asked = s.echo.seen.slice(n).find((e) => e.url === '/path');
      assert.equal(asked?.headers['x-original-url'], 'http://auth/?x=1');
    });

    test('should not create additional upstream block when auth-keepalive is negative', async () => {
      await putExternal({ ...base(), 'auth-url': `${extUrl()}?case=negative`, 'auth-keepalive': '-1' }, 'case=negative');
      assert.deepEqual(await authTraffic(4), [4, 4]);
    });

    test('should not create additional upstream block when auth-keepalive is set with HTTP/2', async () => {
      const a = { ...base(), 'auth-url': `${extUrl()}?case=h2`, 'auth-keepalive': '123', 'auth-keepalive-requests': '456', 'auth-keepalive-timeout': '789' };
      await putExternal(a, 'case=h2');
      assert.deepEqual(await authTraffic(4), [4, 4]);
    });

    test('should create additional upstream block when auth-keepalive is set with HTTP/1.x', async () => {
      // Deliberate: auth-keepalive* are validated and a no-op (docs/migration.md): nginx's auth_request subrequest is
      // header-only and nginx closes its upstream connection instead of pooling it, so each auth request still opens
      // a connection of its own; the answers are ingress-nginx's.
      const a = { ...base(), 'auth-url': `${extUrl()}?case=h1`, 'auth-keepalive': '123', 'auth-keepalive-requests': '456', 'auth-keepalive-timeout': '789' };
      await putExternal(a, 'case=h1');
      assert.deepEqual(await authTraffic(4), [4, 4]);
    });

    // A variable the auth request sets (auth-snippet) and the client's answer reads (configuration-snippet) shows whether
    // the two requests share variables: nginx's auth_request subrequest shares the request's variables.
    const shareVars = async (extra: Record<string, string>, marker: string) => {
      const a = {
        ...base(),
        'auth-url': `${extUrl()}?case=${marker}`,
        'auth-keepalive': '10',
        ...extra,
        'auth-snippet': 'set $auth_shared "from-auth";',
        'configuration-snippet': 'add_header X-Shared $auth_shared;',
      };
      await putExternal(a, `case=${marker}`);
      const r = await s.get('auth', '/', { headers: basic('user', 'password') });
      assert.equal(r.status, 200);
      return r.headers['x-shared'];
    };

    test('should disable set_all_vars when auth-keepalive-share-vars is not set', async () => {
      // Deliberate: auth-keepalive-share-vars is validated and a no-op (auth-keepalive is, see above); the auth request
      // always shares the request's variables, as ingress-nginx's auth requests do without auth-keepalive.
      assert.equal(await shareVars({}, 'sharevars-unset'), 'from-auth');
    });

    test('should enable set_all_vars when auth-keepalive-share-vars is true', async () => {
      assert.equal(await shareVars({ 'auth-keepalive-share-vars': 'true' }, 'sharevars-true'), 'from-auth');
    });
  });

  void describe('when external authentication is configured with a custom redirect param', () => {
    const base = () => ({ 'auth-url': `${extUrl()}?case=orig`, 'auth-signin': 'http://$host/auth/start', 'auth-signin-redirect-param': 'orig' });
    before(async () => {
      await putExternal(base(), 'case=orig');
    });

    test('should return status code 200 when signed in', async () => {
      assert.equal(await status('auth', '/', basic('user', 'password')), 200);
    });

    test('should redirect to signin url when not signed in', async () => {
      const r = await s.get('auth', '/?a=b&c=d');
      assert.equal(r.status, 302);
      assert.equal(r.headers['location'], signinLocation('auth', 'orig'));
    });

    test('keeps processing new ingresses even if one of the existing ingresses is misconfigured', async () => {
      const broken = ing('auth', 'auth', { annotations: ann({ ...base(), 'auth-type': 'basic', 'auth-secret': 'something', 'auth-realm': 'test auth' }) });
      await s.put('auth.json', [broken, ing('different', 'different', { path: '/orig' })], async () => (await status('different', '/orig')) === 200);
      assert.equal(await status('auth', '/', basic('user', 'password')), 503);
    });
  });

  void describe('when external authentication with caching is configured', () => {
    // Deliberate: ingress-nginx's test caches under the constant key "fixed", which Portico refuses (one client's
    // verdict would answer every client); a key naming the client's credentials gives the same answers.
    const [thisHost, thatHost] = ['auth', 'different'];
    let cacheBun: AuthBun;
    beforeEach(async () => {
      cacheBun = await startAuthBun();
      const a = ann({
        'auth-url': `http://127.0.0.1:${cacheBun.port}/basic-auth/user/password`,
        'auth-signin': 'http://$host/auth/start',
        'auth-cache-key': '$http_authorization',
        'auth-cache-duration': '200 201 401 30m',
      });
      const ings = [thisHost, thatHost].flatMap((h) => [ing(`foo-${h}-ing`, h, { path: '/foo', annotations: a }), ing(`bar-${h}-ing`, h, { path: '/bar', annotations: a })]);
      await s.put('auth.json', ings, async () => (await status(thatHost, '/bar')) === 302 && (await status(thisHost, '/foo')) === 302);
    });
    afterEach(() => cacheBun.close());

    test('should return status code 200 when signed in after auth backend is deleted ', async () => {
      assert.equal(await status(thisHost, '/foo', basic('user', 'password')), 200);
      await cacheBun.close();
      assert.equal(await status(thisHost, '/foo', basic('user', 'password')), 200);
    });

    test('should deny login for different location on same server', async () => {
      assert.equal(await status(thisHost, '/foo', basic('user', 'password')), 200);
      await cacheBun.close();
      assert.equal(await status(thisHost, '/foo', basic('user', 'password')), 200);
      assert.equal(await status(thisHost, '/bar', basic('user', 'password')), 500);
    });

    test('should deny login for different servers', async () => {
      assert.equal(await status(thisHost, '/foo', basic('user', 'password')), 200);
      await cacheBun.close();
      assert.equal(await status(thisHost, '/foo', basic('user', 'password')), 200);
      assert.equal(await status(thatHost, '/foo', basic('user', 'password')), 500);
    });

    test('should redirect to signin url when not signed in', async () => {
      // Deliberate: the host has no path `/`; ingress-nginx's catch-all location took the auth of one of the host's
      // Ingresses, Portico's default backend answers it unprotected (annotations apply to their own Ingress's paths).
      assert.equal((await s.get(thisHost, '/?a=b&c=d')).status, 404);
      const r = await s.get(thisHost, '/foo?a=b&c=d');
      assert.equal(r.status, 302);
      assert.equal(r.headers['location'], `http://${thisHost}/auth/start?rd=http://${thisHost}${encodeURIComponent('/foo?a=b&c=d')}`);
    });
  });

  void describe('with invalid auth-url should deny whole location', () => {
    before(async () => {
      const denied = ing('auth', 'auth-denied', { path: '/denied-auth', annotations: ann({ 'auth-url': 'https://invalid..auth.url' }) });
      await s.put('auth.json', [denied, ing('auth-other', 'auth-denied', { path: '/other' })], async () => warned('auth-url', 'invalid url host') && (await status('auth-denied', '/other')) === 200);
    });

    test('should return 503 (location was denied)', async () => {
      // Deliberate: a refused auth annotation fails closed by leaving its Ingress unserved (docs/adr/0016), so the
      // location answers 404 where ingress-nginx kept it and answered 503; either way the backend is never reached.
      const r = await s.get('auth-denied', '/denied-auth');
      assert.equal(r.status, 404);
      assert.equal(s.echo.seen.filter((e) => e.url.startsWith('/denied-auth')).length, 0);
    });

    test('should add error to the config', () => {
      // The operator reads the reason in a Warning (and an Event) naming the Ingress and annotation.
      assert.ok(warned('Ingress default/auth', 'nginx.ingress.kubernetes.io/auth-url', 'invalid url host'));
    });
  });
});
