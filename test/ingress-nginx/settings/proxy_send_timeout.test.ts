// ingress-nginx e2e settings/proxy_send_timeout.go: the ConfigMap's proxy-send-timeout bounds the wait between two
// writes of a request to its backend (504 when it expires), and an invalid value is refused, the default (60 s) kept.
// The backend here accepts and never reads, so a large body stalls once the socket buffers are full. No time is
// measured: each outcome is ordered against an answer the echo backend gives after 3 s.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { service, slice } from '../../support/objects.js';
import { ing, startSuite, type Suite } from '../harness.js';

// 8 MiB: far more than the socket buffers of a loopback connection whose reader never reads.
const BODY = 'x'.repeat(8 * 1024 * 1024);

void describe('settings/proxy_send_timeout.go', () => {
  let s: Suite;
  let deaf: Server;
  const held: Socket[] = [];
  const host = 'proxy-send-timeout.com';
  const reference = 'reference.proxy-send-timeout.com';
  before(async () => {
    deaf = createServer({ pauseOnConnect: true }, (sock) => {
      sock.on('error', () => undefined);
      if (held.length < 100) held.push(sock);
      else sock.destroy();
    });
    await new Promise<void>((resolve) => deaf.listen(0, '127.0.0.1', resolve));
    s = await startSuite({ config: { 'proxy-body-size': '16m' } });
    const port = (deaf.address() as AddressInfo).port;
    const objects = [service('deaf'), slice('deaf', port, ['127.0.0.1']), ing(host, host, { service: 'deaf' }), ing(reference, reference)];
    await s.put('ingresses.json', objects, async () => (await s.get(reference, '/')).status === 200);
  });
  after(async () => {
    await s.stop();
    for (const h of held) h.destroy();
    deaf.close();
  });

  // server-tokens marks which ConfigMap is served: with it, the Server header names nginx's version; without, none.
  const versioned = async () => /^nginx\/\d/.test(String((await s.get(reference, '/')).headers['server']));
  const unversioned = async () => (await s.get(reference, '/')).headers['server'] === undefined;

  /** POSTs the body to `host` and asks `reference` for an answer after 3 s at once: what came first, and the POST's status (0: none in 8 s). */
  const race = async (): Promise<{ first: string; posted: number; ref: number }> => {
    const order: string[] = [];
    const post = s
      .get(host, '/', { method: 'POST', body: BODY, headers: { 'content-type': 'text/plain' }, timeoutMs: 8_000 })
      .then((x) => x.status)
      .catch(() => 0)
      .then((x) => (order.push('post'), x));
    const ref = s.get(reference, '/sleep/3', { timeoutMs: 20_000 }).then((x) => (order.push('reference'), x.status));
    const [posted, refStatus] = await Promise.all([post, ref]);
    return { first: order[0] ?? '', posted, ref: refStatus };
  };

  test('should set valid proxy send timeouts using configmap values', async () => {
    // "1": nginx gives up writing after 1 s, so the 504 comes before the 3 s answer (with the default 60 s, no answer).
    await s.config({ 'proxy-body-size': '16m', 'proxy-send-timeout': '1', 'server-tokens': 'true' }, versioned);
    const r = await race();
    assert.equal(r.posted, 504);
    assert.equal(r.ref, 200);
    assert.equal(r.first, 'post');
  });

  test('should not set invalid proxy send timeouts using configmap values', async () => {
    // Back to the default first: Portico keeps a key's previous good value when a new one is bad (docs/configmap.md).
    await s.config({ 'proxy-body-size': '16m' }, unversioned);
    // "20k" is no time: refused with a Warning naming the key, and the default (60 s) stays: still no answer after 3 s.
    await s.config({ 'proxy-body-size': '16m', 'proxy-send-timeout': '20k', 'server-tokens': 'true' }, versioned);
    assert.ok(s.portico.output.some((l) => l.includes('proxy-send-timeout') && l.includes('20k') && l.includes('is not a number of seconds')));
    const r = await race();
    assert.equal(r.ref, 200);
    assert.equal(r.first, 'reference');
    assert.notEqual(r.posted, 200);
  });
});
