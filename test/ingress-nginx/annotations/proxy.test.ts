// ingress-nginx e2e annotations/proxy.go: proxy-redirect-*, proxy-body-size, timeouts, cookies and the HTTP version
// nginx speaks to the backend, each read from real answers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { service, slice } from '../../support/objects.js';
import { ann, ing, startSuite, type Suite } from '../harness.js';

const CASES: Record<string, Record<string, string>> = {
  off: { 'proxy-redirect-from': 'off', 'proxy-redirect-to': 'goodbye.com' },
  default: { 'proxy-redirect-from': 'default', 'proxy-redirect-to': 'goodbye.com' },
  hello: { 'proxy-redirect-from': 'hello.com', 'proxy-redirect-to': 'goodbye.com' },
  body8m: { 'proxy-body-size': '8m' },
  body15r: { 'proxy-body-size': '15r' },
  timeouts: { 'proxy-connect-timeout': '50', 'proxy-send-timeout': '20', 'proxy-read-timeout': '1' },
  badtimeouts: { 'proxy-connect-timeout': '50k', 'proxy-send-timeout': '20k', 'proxy-read-timeout': '20k' },
  cookies: { 'proxy-cookie-domain': 'localhost example.org', 'proxy-cookie-path': '/one/ /' },
  http10: { 'proxy-http-version': '1.0' },
  // The timeout and tries are beyond what Portico takes (86400 s, 100): dropped with a Warning, the defaults apply.
  nextup: { 'proxy-next-upstream': 'error timeout http_502', 'proxy-next-upstream-timeout': '999999', 'proxy-next-upstream-tries': '888888' },
};
const host = (c: string) => `${c}.proxy.test`;

void describe('annotations/proxy.go', () => {
  let s: Suite;
  let bad: Server;
  before(async () => {
    // Service `flaky`: one endpoint answers 502 to everything, the other is the echo backend.
    bad = createServer((_req, res) => {
      res.writeHead(502, { 'x-backend': 'bad' });
      res.end();
    });
    await new Promise<void>((resolve) => bad.listen(0, '127.0.0.1', resolve));
    s = await startSuite();
    const flaky = [service('flaky'), slice('flaky', (bad.address() as AddressInfo).port, ['127.0.0.1'], { name: 'flaky-bad' }), slice('flaky', s.echo.port, ['127.0.0.1'], { name: 'flaky-good' })];
    await s.put(
      'ingresses.json',
      [...flaky, ...Object.entries(CASES).map(([c, a]) => ing(`proxy-${c}`, host(c), { annotations: ann(a), ...(c === 'nextup' ? { service: 'flaky' } : {}) }))],
      async () => (await s.get(host('http10'), '/')).headers['x-http-version'] === '1.0',
    );
  });
  after(async () => {
    await s.stop();
    bad.close();
  });

  const location = async (c: string, to: string) => (await s.get(host(c), `/?location=${encodeURIComponent(to)}`)).headers['location'];
  const post = async (c: string, bytes: number) => (await s.get(host(c), '/', { method: 'POST', body: 'x'.repeat(bytes), headers: { 'content-type': 'text/plain' } })).status;

  test('should set proxy_redirect to off', async () => {
    assert.equal(await location('off', 'http://hello.com/x'), 'http://hello.com/x');
  });

  test('should set proxy_redirect to default', async () => {
    // nginx's default: the backend's own address in a Location becomes the request's host.
    assert.equal(await location('default', 'http://hello.com/x'), 'http://hello.com/x');
  });

  test('should set proxy_redirect to hello.com goodbye.com', async () => {
    assert.equal(await location('hello', 'hello.com/x'), 'goodbye.com/x');
  });

  test('should set proxy client-max-body-size to 8m', async () => {
    assert.equal(await post('body8m', 2 * 1024 * 1024), 200);
    assert.equal(await post('body8m', 9 * 1024 * 1024), 413);
  });

  test('should not set proxy client-max-body-size to incorrect value', async () => {
    // "15r" is no size: the default (1m) stays.
    assert.equal(await post('body15r', 512 * 1024), 200);
    assert.equal(await post('body15r', 2 * 1024 * 1024), 413);
  });

  test('should set valid proxy timeouts', async () => {
    assert.equal((await s.get(host('timeouts'), '/sleep/3')).status, 504);
    assert.equal((await s.get(host('timeouts'), '/')).status, 200);
  });

  test('should not set invalid proxy timeouts', async () => {
    // "20k" is no time: the default read timeout (60 s) stays, so a 2 s answer arrives.
    assert.equal((await s.get(host('badtimeouts'), '/sleep/2')).status, 200);
  });

  test('should build proxy next upstream', async () => {
    // Round robin sends every other request to the 502 endpoint; http_502 makes nginx try the next one.
    for (let i = 0; i < 6; i += 1) {
      const r = await s.get(host('nextup'), '/');
      assert.equal(r.status, 200);
      assert.equal(r.headers['x-backend'], 'echo');
    }
  });

  test('should setup proxy cookies', async () => {
    const r = await s.get(host('cookies'), `/?set-cookie=${encodeURIComponent('a=b; Domain=localhost; Path=/one/')}`);
    assert.equal(String(r.headers['set-cookie']), 'a=b; Domain=example.org; Path=/');
  });

  test('should change the default proxy HTTP version', async () => {
    assert.equal((await s.get(host('http10'), '/')).headers['x-http-version'], '1.0');
  });
});
