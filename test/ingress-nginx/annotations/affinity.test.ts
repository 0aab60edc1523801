// ingress-nginx e2e annotations/affinity.go: affinity: cookie and the session-cookie-* annotations, read from the
// Set-Cookie header of real answers over HTTP and HTTPS.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpsGet, makeCert } from '../../support/certs.js';
import { tlsSecret } from '../../support/tls-manifests.js';
import { backendObjects } from '../../support/manifests.js';
import { ann, ing, startSuite, type Suite } from '../harness.js';

/** Each upstream test runs in a namespace of its own with its own echo Service: here a Service per test, all on the echo backend. */
const svc = (name: string) => `echo-${name}`;
const sticky = (extra: Record<string, string> = {}) => ann({ affinity: 'cookie', 'session-cookie-name': 'SERVERID', ...extra });

void describe('annotations/affinity.go', () => {
  let s: Suite;
  const certDir = mkdtempSync(join(tmpdir(), 'portico-affinity-'));
  /** The Set-Cookie header of a 200 answer (fails on any other status). */
  const cookie = async (host: string, path: string): Promise<string> => {
    const r = await s.get(host, path);
    assert.equal(r.status, 200, `${host}${path}`);
    return (r.headers['set-cookie'] ?? []).join('\n');
  };
  const hasCookie = (host: string, path: string, name: string) => async () => {
    const r = await s.get(host, path);
    return r.status === 200 && (r.headers['set-cookie'] ?? []).some((c) => c.startsWith(`${name}=`));
  };
  const CASES = ['sticky', 'change', 'path', 'morethanonerule', 'cookieexpires', 'cookiedomain', 'cookienodomain', 'useregex', 'useregexwarn', 'separate', 'default-no-host', 'foo'];
  const ingresses = () => [
    ...CASES.flatMap((c) => backendObjects(svc(c), s.echo.port)),
    ing('sticky', 'sticky.foo.com', { service: svc('sticky'), annotations: sticky() }),
    ing('path', 'path.foo.com', { service: svc('path'), path: '/something', annotations: sticky() }),
    ing('morethanonerule', 'morethanonerule.foo.com', {
      annotations: sticky(),
      paths: [
        { path: '/something', type: 'Prefix', service: svc('morethanonerule') },
        { path: '/somewhereelse', type: 'Prefix', service: svc('morethanonerule') },
      ],
    }),
    ing('cookieexpires', 'cookieexpires.foo.com', {
      service: svc('cookieexpires'),
      annotations: sticky({ 'session-cookie-name': 'ExpiresCookie', 'session-cookie-expires': '172800', 'session-cookie-max-age': '259200' }),
    }),
    ing('cookiedomain', 'cookiedomain.foo.com', { service: svc('cookiedomain'), annotations: sticky({ 'session-cookie-name': 'DomainCookie', 'session-cookie-domain': 'foo.bar' }) }),
    ing('cookienodomain', 'cookienodomain.foo.com', { service: svc('cookienodomain'), annotations: sticky({ 'session-cookie-name': 'NoDomainCookie' }) }),
    ing('useregex', 'useregex.foo.com', { service: svc('useregex'), path: '/foo/.*', type: 'ImplementationSpecific', annotations: sticky({ 'use-regex': 'true', 'session-cookie-path': '/foo/bar' }) }),
    ing('useregexwarn', 'useregexwarn.foo.com', { service: svc('useregexwarn'), path: '/foo/.*', type: 'ImplementationSpecific', annotations: sticky({ 'use-regex': 'true' }) }),
    ing('ingress1', 'separate.foo.com', { service: svc('separate'), path: '/foo/bar', annotations: ann({ affinity: 'cookie' }) }),
    ing('ingress2', 'separate.foo.com', { service: svc('separate'), path: '/foo' }),
    ing('default-no-host', undefined, { service: svc('default-no-host'), annotations: sticky() }),
  ];
  before(async () => {
    const pem = makeCert(certDir, 'foo.com', { sans: ['foo.com'] });
    s = await startSuite({ objects: [tlsSecret('foo-tls', pem)] });
    await s.put('ingresses.json', ingresses(), async () => (await hasCookie('sticky.foo.com', '/', 'SERVERID')()) && (await s.get('separate.foo.com', '/foo')).status === 200);
  });
  after(async () => {
    await s.stop();
    rmSync(certDir, { recursive: true, force: true });
  });

  test('should set sticky cookie SERVERID', async () => {
    assert.match(await cookie('sticky.foo.com', '/'), /^SERVERID=/m);
  });

  test('should change cookie name on ingress definition change', async () => {
    await s.put('change.json', [ing('change', 'change.foo.com', { service: svc('change'), annotations: sticky() })], hasCookie('change.foo.com', '/', 'SERVERID'));
    await s.put(
      'change.json',
      [ing('change', 'change.foo.com', { service: svc('change'), annotations: sticky({ 'session-cookie-name': 'OTHERCOOKIENAME' }) })],
      hasCookie('change.foo.com', '/', 'OTHERCOOKIENAME'),
    );
    assert.match(await cookie('change.foo.com', '/'), /^OTHERCOOKIENAME=/m);
  });

  test('should set the path to /something on the generated cookie', async () => {
    assert.match(await cookie('path.foo.com', '/something'), /; Path=\/something(;|$)/m);
  });

  test("does not set the path to / on the generated cookie if there's more than one rule referring to the same backend", async () => {
    assert.match(await cookie('morethanonerule.foo.com', '/something'), /; Path=\/something(;|$)/m);
    assert.match(await cookie('morethanonerule.foo.com', '/somewhereelse'), /; Path=\/somewhereelse(;|$)/m);
  });

  test('should set cookie with expires', async () => {
    // Deliberate: Expires is an RFC 1123 date with a 4-digit year (`Mon, 30 Nov 2026 19:31:18 GMT`), where
    // ingress-nginx wrote `Mon, 30-Nov-26 19:31:18 GMT`; browsers read both as the same instant, 48 h from the answer.
    // Compared to the minute; the minutes before and after the request are both accepted.
    const minute = (t: number) => new Date(t + 48 * 3600_000).toUTCString().slice(0, -7);
    const before1 = minute(Date.now());
    const c = await cookie('cookieexpires.foo.com', '/');
    const after1 = minute(Date.now());
    assert.ok(c.includes(`Expires=${before1}`) || c.includes(`Expires=${after1}`), c);
    assert.match(c, /Max-Age=259200/);
  });

  test('should set cookie with domain', async () => {
    // Deliberate: session-cookie-domain is refused with a Warning and the Ingress is served without it (the cookie
    // has no Domain): an affinity cookie sent to other hosts would meet their backends and lose its endpoint.
    const c = await cookie('cookiedomain.foo.com', '/');
    assert.match(c, /^DomainCookie=/m);
    assert.doesNotMatch(c, /Domain=/i);
    assert.ok(s.portico.output.some((l) => l.includes('"level":40') && l.includes('Ingress default/cookiedomain') && l.includes('session-cookie-domain')));
  });

  test('should not set cookie without domain annotation', async () => {
    const c = await cookie('cookienodomain.foo.com', '/');
    assert.match(c, /^NoDomainCookie=/m);
    assert.doesNotMatch(c, /; Domain/);
  });

  test('should work with use-regex annotation and session-cookie-path', async () => {
    const c = await cookie('useregex.foo.com', '/foo/bar');
    assert.match(c, /^SERVERID=/m);
    assert.match(c, /; Path=\/foo\/bar(;|$)/m);
  });

  test('should warn user when use-regex is true and session-cookie-path is not set', async () => {
    await cookie('useregexwarn.foo.com', '/foo/bar');
    assert.ok(s.portico.output.some((l) => l.includes('"level":40') && l.includes('Ingress default/useregexwarn') && l.includes('session-cookie-path should be set when use-regex is true')));
  });

  test('should not set affinity across all server locations when using separate ingresses', async () => {
    const r = await s.get('separate.foo.com', '/foo');
    assert.equal(r.status, 200);
    assert.equal(r.headers['set-cookie'], undefined);
    assert.match(await cookie('separate.foo.com', '/foo/bar'), /; Path=\/foo\/bar(;|$)/m);
  });

  test('should set sticky cookie without host', async () => {
    assert.match(await cookie('any-host.test', '/'), /^SERVERID=/m);
  });

  test('should work with server-alias annotation', async () => {
    const i = ing('foo.com', 'foo.com', { service: svc('foo'), path: '/bar', annotations: sticky({ 'server-alias': 'a1.foo.com,a2.foo.com' }) });
    await s.put('foo.json', [i], hasCookie('a2.foo.com', '/bar', 'SERVERID'));
    for (const host of ['foo.com', 'a1.foo.com', 'a2.foo.com']) assert.match(await cookie(host, '/bar'), /^SERVERID=/m, host);
  });

  test('should set secure in cookie with provided true annotation on http', async () => {
    await s.put('foo.json', [ing('foo.com', 'foo.com', { service: svc('foo'), path: '/bar', annotations: sticky({ 'session-cookie-secure': 'true' }) })], async () =>
      (await cookie('foo.com', '/bar')).includes('; Secure'),
    );
    assert.match(await cookie('foo.com', '/bar'), /; Secure/);
  });

  test('should not set secure in cookie with provided false annotation on http', async () => {
    await s.put(
      'foo.json',
      [ing('foo.com', 'foo.com', { service: svc('foo'), path: '/bar', annotations: sticky({ 'session-cookie-secure': 'false' }) })],
      async () => !(await cookie('foo.com', '/bar')).includes('; Secure'),
    );
    const c = await cookie('foo.com', '/bar');
    assert.match(c, /^SERVERID=/m);
    assert.doesNotMatch(c, /; Secure/);
  });

  test('should set secure in cookie with provided false annotation on https', async () => {
    const i = ing('foo.com', 'foo.com', { service: svc('foo'), annotations: sticky({ 'session-cookie-secure': 'false' }) });
    const withTls = { ...i, spec: { ...i.spec, tls: [{ hosts: ['foo.com'], secretName: 'foo-tls' }] } };
    const overTls = async () => {
      const r = await httpsGet(s.portico.https, 'foo.com', '/');
      return r.status === 200 ? String(r.headers['set-cookie'] ?? '') : '';
    };
    await s.put('foo.json', [withTls], async () => (await overTls()).startsWith('SERVERID='));
    assert.match(await overTls(), /; Secure/);
  });
});
