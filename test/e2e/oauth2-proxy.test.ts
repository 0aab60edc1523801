// oauth2-proxy as its documentation writes it, through real nginx: auth-url https://$host/oauth2/auth and auth-signin
// https://$host/oauth2/start?rd=$escaped_request_uri protect a host end to end against a stand-in auth service that
// is itself routed by a second Ingress on the same host; variables elsewhere are refused, and a loop fails fast.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startBackend, type Backend } from '../support/backends.js';
import { backendObjects, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { ingress } from '../support/objects.js';
import { get, startPortico, until, type Running } from '../support/portico.js';

const P = 'nginx.ingress.kubernetes.io';
const OAUTH = {
  [`${P}/auth-url`]: 'https://$host/oauth2/auth',
  [`${P}/auth-signin`]: 'https://$host/oauth2/start?rd=$escaped_request_uri',
  [`${P}/auth-response-headers`]: 'X-Auth-Request-User, X-Auth-Request-Email',
};

/** The stand-in: /oauth2/auth is 202 with the user for the session cookie, else 401; /oauth2/start redirects to a login page. */
async function startOauth2(): Promise<{ port: number; server: Server; seen: { url: string; headers: IncomingHttpHeaders }[] }> {
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((req, res) => {
    if (seen.length < 1000) seen.push({ url: req.url ?? '', headers: req.headers });
    if (req.url === '/oauth2/auth' && /(^|; )_oauth2_proxy=alice(;|$)/.test(req.headers.cookie ?? ''))
      res.writeHead(202, { 'x-auth-request-user': 'alice', 'x-auth-request-email': 'alice@example.test' });
    else if (req.url === '/oauth2/auth') res.writeHead(401);
    else res.writeHead(302, { location: 'https://login.example.test/authorize' });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server, seen };
}

void describe('oauth2-proxy with nginx variables in auth-url and auth-signin (real nginx)', () => {
  let dir: ManifestDir;
  let app: Backend;
  let oauth: Awaited<ReturnType<typeof startOauth2>>;
  let portico: Running;
  const on = (name: string, host: string, path: string, service: string, annotations: Record<string, string> = {}) =>
    ingress(name, { host, className: 'portico', annotations, paths: [{ path, type: 'Prefix', service }] });

  before(async () => {
    dir = await manifestFolder();
    app = await startBackend('app');
    oauth = await startOauth2();
    await dir.write('backends.json', [...backendObjects('app', app.port), ...backendObjects('oauth2-proxy', oauth.port)]);
    await dir.write('ingresses.json', [
      on('app', 'app.test', '/', 'app', OAUTH),
      on('oauth2', 'app.test', '/oauth2', 'oauth2-proxy'),
      on('port', 'port.test', '/', 'app', { [`${P}/auth-url`]: 'https://$host:10246/oauth2/auth' }),
      on('path-var', 'pathvar.test', '/', 'app', { [`${P}/auth-url`]: 'http://auth.test/$request_uri' }),
      on('other-var', 'othervar.test', '/', 'app', { [`${P}/auth-signin`]: 'https://$host/start?rd=$http_cookie', [`${P}/auth-url`]: 'https://$host/oauth2/auth' }),
      // Its auth path is protected by itself: each nested auth request would start another.
      on('loop', 'loop.test', '/', 'app', { [`${P}/auth-url`]: 'http://$host/auth' }),
    ]);
    portico = await startPortico(['--manifests', dir.dir]);
    await until('app.test served', async () => (await get(portico.http, 'app.test', '/')).status === 302, 20_000);
  });

  after(async () => {
    await portico.stop();
    await app.close();
    await new Promise<void>((resolve) => {
      oauth.server.close(() => {
        resolve();
      });
    });
    await dir.remove();
  });

  void it('without a session: a redirect to the sign-in URL carrying the original URI once', async () => {
    const r = await get(portico.http, 'app.test', '/private/page?x=1&y=2');
    assert.equal(r.status, 302);
    const location = new URL(String(r.headers.location));
    assert.deepEqual([location.origin, location.pathname, [...location.searchParams.keys()], location.searchParams.get('rd')], ['https://app.test', '/oauth2/start', ['rd'], '/private/page?x=1&y=2']);
    assert.equal(app.seen.length, 0, 'the backend never saw the request');
    const check = oauth.seen.findLast((s) => s.url === '/oauth2/auth');
    assert.deepEqual([check?.headers.host, check?.headers['x-forwarded-proto'], check?.headers['x-original-url']], ['app.test', 'https', 'http://app.test/private/page?x=1&y=2']);
  });

  void it('with a session: the backend answers and gets the user from the auth response', async () => {
    const r = await get(portico.http, 'app.test', '/private', { headers: { cookie: '_oauth2_proxy=alice' } });
    assert.deepEqual([r.status, r.headers['x-backend']], [200, 'app']);
    const seen = app.seen.at(-1);
    assert.deepEqual([seen?.headers['x-auth-request-user'], seen?.headers['x-auth-request-email']], ['alice', 'alice@example.test']);
  });

  void it('the sign-in path itself is served by the oauth2-proxy Ingress', async () => {
    const r = await get(portico.http, 'app.test', '/oauth2/start?rd=%2F');
    assert.deepEqual([r.status, r.headers.location], [302, 'https://login.example.test/authorize']);
  });

  void it('variables anywhere else are refused with a Warning naming the annotation, and those Ingresses are not served', async () => {
    for (const [host, annotation] of [
      ['port.test', 'auth-url'],
      ['pathvar.test', 'auth-url'],
      ['othervar.test', 'auth-signin'],
    ]) {
      assert.equal((await get(portico.http, host ?? '', '/')).status, 404, host);
      assert.ok(
        portico.output.some((l) => l.includes(`${P}/${annotation ?? ''}`) && l.includes('not served')),
        `${host ?? ''}: a Warning`,
      );
    }
  });

  void it('an auth path protected by itself fails at once (508 inside, 500 outside) instead of looping', async () => {
    const started = Date.now();
    const r = await get(portico.http, 'loop.test', '/x', { timeoutMs: 5000 });
    assert.equal(r.status, 500);
    assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms`);
  });
});
