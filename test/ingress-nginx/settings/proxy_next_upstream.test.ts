// ingress-nginx e2e settings/proxy_next_upstream.go: the ConfigMap's proxy-next-upstream (with its timeout and
// tries) decides when nginx tries the next endpoint: here http_502, so a 502 from one endpoint is retried on the other.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { service, slice } from '../../support/objects.js';
import { ing, startSuite, type Suite } from '../harness.js';

void describe('settings/proxy_next_upstream.go', () => {
  let s: Suite;
  let bad: Server;
  const host = 'proxy-next-upstream.com';
  before(async () => {
    // One endpoint of Service `flaky` answers 502 to everything, the other is the echo backend.
    bad = createServer((_req, res) => {
      res.writeHead(502, { 'x-backend': 'bad' });
      res.end();
    });
    await new Promise<void>((resolve) => bad.listen(0, '127.0.0.1', resolve));
    s = await startSuite();
    const badPort = (bad.address() as AddressInfo).port;
    const flaky = [service('flaky'), slice('flaky', badPort, ['127.0.0.1'], { name: 'flaky-bad' }), slice('flaky', s.echo.port, ['127.0.0.1'], { name: 'flaky-good' })];
    await s.put('ingresses.json', [...flaky, ing(host, host, { service: 'flaky' })], async () => (await s.get(host, '/')).headers['x-backend'] !== undefined);
  });
  after(async () => {
    await s.stop();
    bad.close();
  });

  test('should build proxy next upstream using configmap values', async () => {
    // The timeout and tries are beyond what Portico takes (86400 s, 100): each is dropped with a Warning naming the key
    // and its default stays (no time limit, 3 tries), as for the annotations (annotations/proxy.go).
    const cm = { 'proxy-next-upstream': 'timeout http_502', 'proxy-next-upstream-timeout': '999999', 'proxy-next-upstream-tries': '888888' };
    const statuses = async () => Promise.all([0, 1, 2, 3].map(async () => (await s.get(host, '/')).status));
    const all200 = async () => (await statuses()).every((x) => x === 200);
    // Before: the default ("error timeout") passes a 502 on; round robin gives each worker the 502 endpoint every other request.
    assert.ok((await statuses()).includes(502));
    await s.config(cm, all200);
    assert.ok(s.portico.output.some((l) => l.includes('"level":40') && l.includes('proxy-next-upstream-tries') && l.includes('888888')));
    // Round robin alternates the endpoints; every request ends at the echo backend.
    for (let i = 0; i < 6; i += 1) {
      const r = await s.get(host, '/');
      assert.equal(r.status, 200);
      assert.equal(r.headers['x-backend'], 'echo');
    }
  });
});
