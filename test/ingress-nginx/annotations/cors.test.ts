// ingress-nginx e2e annotations/cors.go: enable-cors and the cors-* annotations, read from real answers (a preflight
// OPTIONS shows every CORS header nginx was told to send).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, ing, startSuite, type Suite } from '../harness.js';

const CASES: Record<string, Record<string, string>> = {
  enable: { 'enable-cors': 'true' },
  methods: { 'enable-cors': 'true', 'cors-allow-methods': 'POST, GET' },
  maxage: { 'enable-cors': 'true', 'cors-max-age': '200' },
  nocreds: { 'enable-cors': 'true', 'cors-allow-credentials': 'false' },
  origin: { 'enable-cors': 'true', 'cors-allow-origin': 'https://origin.cors.com:8080' },
  headers: { 'enable-cors': 'true', 'cors-allow-headers': 'DNT, User-Agent' },
  expose: { 'enable-cors': 'true', 'cors-expose-headers': 'X-CustomResponseHeader, X-CustomSecondHeader' },
  multi: { 'enable-cors': 'true', 'cors-allow-origin': 'https://origin.cors.com:8080, https://origin2.cors.com' },
  multinot: { 'enable-cors': 'true', 'cors-allow-origin': 'http://origin2.cors.com, https://origin.com' },
  multicorrect: { 'enable-cors': 'true', 'cors-allow-origin': 'origin.cors.com:8080, https://origin2.cors.com, https://origin.com' },
  star: { 'enable-cors': 'true', 'cors-allow-origin': '*' },
  nostar: { 'enable-cors': 'true' },
  starextra: { 'enable-cors': 'true', 'cors-allow-origin': '*, foo.bar.com' },
  nomatch: { 'enable-cors': 'true', 'cors-allow-origin': 'https://foo.bar.com' },
  port: { 'enable-cors': 'true', 'cors-allow-origin': 'http://origin.cors.com:8080, http://origin.com:8080' },
  portless: { 'enable-cors': 'true', 'cors-allow-origin': 'https://origin2.cors.com, http://origin.com' },
  wild: { 'enable-cors': 'true', 'cors-allow-origin': 'http://*.origin.cors.com, http://*.origin.com:8080' },
  wildport: { 'enable-cors': 'true', 'cors-allow-origin': 'http://origin.cors.com:8080, http://*.origin.com:8080' },
  blank: { 'enable-cors': 'true', 'cors-allow-origin': '      ' },
  comma: { 'enable-cors': 'true', 'cors-allow-origin': 'https://origin-123.cors.com:8080,   ,https://origin-321.cors.com:8080,' },
  scheme: { 'enable-cors': 'true', 'cors-allow-origin': 'test://localhost, tauri://localhost:3000' },
};
const host = (c: string) => `${c}.cors.test`;

void describe('annotations/cors.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite();
    const ingresses = Object.entries(CASES).map(([c, a]) => ing(`cors-${c}`, host(c), { annotations: ann(a) }));
    await s.put('ingresses.json', ingresses, async () => (await s.get(host('scheme'), '/')).status === 200);
  });
  after(() => s.stop());

  /** The Access-Control-Allow-Origin answered to a GET from `origin` (undefined: none). */
  const allowed = async (c: string, origin?: string) => (await s.get(host(c), '/', origin === undefined ? {} : { headers: { origin } })).headers['access-control-allow-origin'];
  const preflight = async (c: string, origin = 'https://origin.test') => s.get(host(c), '/', { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET' } });

  test('should enable cors', async () => {
    const p = await preflight('enable');
    assert.equal(p.status, 204);
    assert.equal(p.headers['access-control-allow-methods'], 'GET, PUT, POST, DELETE, PATCH, OPTIONS');
    assert.equal(p.headers['access-control-allow-origin'], '*');
    // The same names; Portico writes the default list with a space after each comma (equal in HTTP's list syntax).
    assert.deepEqual(
      String(p.headers['access-control-allow-headers']).split(/,\s*/),
      'DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization'.split(','),
    );
    assert.equal(p.headers['access-control-max-age'], '1728000');
    assert.equal(p.headers['access-control-allow-credentials'], 'true');
    assert.equal((await s.get(host('enable'), '/')).status, 200);
  });

  test('should set cors methods to only allow POST, GET', async () => {
    assert.equal((await preflight('methods')).headers['access-control-allow-methods'], 'POST, GET');
  });

  test('should set cors max-age', async () => {
    assert.equal((await preflight('maxage')).headers['access-control-max-age'], '200');
  });

  test('should disable cors allow credentials', async () => {
    const p = await preflight('nocreds');
    assert.equal(p.status, 204);
    assert.equal(p.headers['access-control-allow-credentials'], undefined);
  });

  test('should allow origin for cors', async () => {
    const r = await s.get(host('origin'), '/', { headers: { origin: 'https://origin.cors.com:8080' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers['access-control-allow-origin'], 'https://origin.cors.com:8080');
  });

  test('should allow headers for cors', async () => {
    assert.equal((await preflight('headers')).headers['access-control-allow-headers'], 'DNT, User-Agent');
  });

  test('should expose headers for cors', async () => {
    assert.equal((await s.get(host('expose'), '/', { headers: { origin: 'https://x.test' } })).headers['access-control-expose-headers'], 'X-CustomResponseHeader, X-CustomSecondHeader');
  });

  test('should allow - single origin for multiple cors values', async () => {
    assert.equal(await allowed('multi', 'https://origin.cors.com:8080'), 'https://origin.cors.com:8080');
  });

  test('should not allow - single origin for multiple cors values', async () => {
    assert.equal(await allowed('multinot', 'http://no.origin.com'), undefined);
  });

  test('should allow correct origins - single origin for multiple cors values', async () => {
    // Deliberate difference: an entry that is no origin (no scheme) refuses the Ingress, naming the annotation;
    // ingress-nginx skipped it and served the others. A typo in an access list is not narrowed silently.
    assert.equal((await s.get(host('multicorrect'), '/', { headers: { origin: 'https://origin2.cors.com' } })).status, 404);
    assert.ok(s.portico.output.some((l) => l.includes('Ingress default/cors-multicorrect') && l.includes('cors-allow-origin') && l.includes('is not an origin')));
  });

  test('should not break functionality', async () => {
    assert.equal(await allowed('star'), '*');
  });

  test('should not break functionality - without `*`', async () => {
    assert.equal(await allowed('nostar'), '*');
  });

  test('should not break functionality with extra domain', async () => {
    assert.equal(await allowed('starextra'), '*');
  });

  test('should not match', async () => {
    assert.equal(await allowed('nomatch', 'https://fooxbar.com'), undefined);
  });

  test('should allow - single origin with required port', async () => {
    assert.equal(await allowed('port', 'http://origin.com:8080'), 'http://origin.com:8080');
  });

  test('should not allow - single origin with port and origin without port', async () => {
    assert.equal(await allowed('portless', 'http://origin.com:8080'), undefined);
  });

  test('should not allow - single origin without port and origin with required port', async () => {
    assert.equal(await allowed('port', 'http://origin.com'), undefined);
  });

  test('should allow - matching origin with wildcard origin (2 subdomains)', async () => {
    assert.equal(await allowed('wild', 'http://foo.origin.cors.com'), 'http://foo.origin.cors.com');
    assert.equal(await allowed('wild', 'http://bar-foo.origin.cors.com'), 'http://bar-foo.origin.cors.com');
  });

  test('should not allow - unmatching origin with wildcard origin (2 subdomains)', async () => {
    assert.equal(await allowed('wild', 'http://bar.foo.origin.cors.com'), undefined);
  });

  test('should allow - matching origin+port with wildcard origin', async () => {
    assert.equal(await allowed('wildport', 'http://abc.origin.com:8080'), 'http://abc.origin.com:8080');
  });

  test('should not allow - portless origin with wildcard origin', async () => {
    assert.equal(await allowed('wildport', 'http://abc.origin.com'), undefined);
  });

  test('should allow correct origins - missing subdomain + origin with wildcard origin and correct origin', async () => {
    assert.equal(await allowed('wildport', 'http://origin.com:8080'), undefined);
    assert.equal(await allowed('wildport', 'http://bar.origin.com:8080'), 'http://bar.origin.com:8080');
  });

  test('should allow - missing origins (should allow all origins)', async () => {
    for (const origin of ['http://origin.com', 'http://book.origin.com', 'test.origin.com']) assert.equal(await allowed('blank', origin), '*');
  });

  test('should allow correct origin but not others - cors allow origin annotations contain trailing comma', async () => {
    assert.equal(await allowed('comma', 'https://origin-123.cors.com:8080'), 'https://origin-123.cors.com:8080');
    assert.equal(await allowed('comma', 'https://origin-321.cors.com:8080'), 'https://origin-321.cors.com:8080');
    assert.equal(await allowed('comma', 'https://unknown.cors.com:8080'), undefined);
  });

  test('should allow - origins with non-http[s] protocols', async () => {
    assert.equal(await allowed('scheme', 'test://localhost'), 'test://localhost');
    assert.equal(await allowed('scheme', 'tauri://localhost:3000'), 'tauri://localhost:3000');
  });
});
