// /metrics values through real nginx (the log phase is cheap: numbers parsed in nginx's buffer,
// $portico_backend read only where a rewrite hook ran): exact size sums against the bytes on the wire, one upstream
// time per proxied request, and the canary label of requests a canary took.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress, ingressClass } from '../support/objects.js';
import { manifestDir, serviceFor, writeManifests } from '../support/manifests.js';
import { startPortico, until, who, type Running } from '../support/portico.js';
import { scrape, total, type Scrape } from '../support/prometheus.js';

const M = 'nginx_ingress_controller_';

/** One raw HTTP/1.1 request on its own connection (Connection: close): the bytes sent and the bytes received. */
function raw(port: number, text: string): Promise<{ sent: number; received: number; head: string }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(text);
    }); // no FIN: nginx would take it for a client abort (499)
    socket.setTimeout(10_000, () => {
      socket.destroy(new Error('timeout'));
    });
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => {
      socket.end();
    }); // the server closes after its answer (Connection: close)
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks);
      resolve({ sent: Buffer.byteLength(text), received: all.length, head: all.subarray(0, 12).toString('latin1') });
    });
  });
}

describe('metrics values', () => {
  let backends: Backend[] = [];
  let dir = '';
  let portico: Running;

  before(async () => {
    backends = await Promise.all(['main', 'canary'].map((id) => startBackend(id)));
    dir = await manifestDir();
    await writeManifests(dir, 'all.yaml', [
      ingressClass('portico'),
      ...serviceFor('main', [backends[0]!]),
      ...serviceFor('canary', [backends[1]!]),
      ingress('plain', { className: 'portico', host: 'plain.test', paths: [{ path: '/', type: 'Prefix', service: 'main' }] }),
      ingress('app', { className: 'portico', host: 'app.test', paths: [{ path: '/', type: 'Prefix', service: 'main' }] }),
      ingress('app-canary', {
        className: 'portico',
        host: 'app.test',
        paths: [{ path: '/', type: 'Prefix', service: 'canary' }],
        annotations: { 'nginx.ingress.kubernetes.io/canary': 'true', 'nginx.ingress.kubernetes.io/canary-by-header': 'X-Canary' },
      }),
    ]);
    portico = await startPortico(['--manifests', dir]);
    await until('app.test served', async () => (await who(portico.http, 'app.test', '/')) === 'main');
  });

  after(async () => {
    assert.equal(await portico?.stop(), 0);
    await Promise.all(backends.map((b) => b.close()));
    await rm(dir, { recursive: true, force: true });
  });

  const moved = (now: Scrape, base: Scrape, name: string, labels: Record<string, string>): number => total(now, `${M}${name}`, labels) - total(base, `${M}${name}`, labels);

  test('request and response size sums equal the bytes on the wire; one upstream time per proxied request', async () => {
    const base = await scrape(portico);
    const plain = { ingress: 'plain', host: 'plain.test', status: '200' };
    let sent = 0;
    let received = 0;
    const K = 23;
    for (let i = 0; i < K; i++) {
      // sizes that differ per request: the path and a header of i * 37 bytes
      const r = await raw(portico.http, `GET /p/${'x'.repeat(i)} HTTP/1.1\r\nHost: plain.test\r\nX-Pad: ${'y'.repeat(i * 37)}\r\nConnection: close\r\n\r\n`);
      assert.equal(r.head, 'HTTP/1.1 200');
      sent += r.sent;
      received += r.received;
    }
    await until('K requests counted', async () => moved(await scrape(portico), base, 'requests', plain) >= K, 10_000, 200);
    const now = await scrape(portico);
    assert.equal(moved(now, base, 'requests', plain), K);
    assert.equal(moved(now, base, 'request_size_sum', plain), sent, '$request_length summed');
    assert.equal(moved(now, base, 'response_size_sum', plain), received, '$bytes_sent summed');
    assert.equal(moved(now, base, 'response_duration_seconds_count', plain), K, 'one $upstream_response_time per request');
    const upstreamSum = moved(now, base, 'response_duration_seconds_sum', plain);
    const requestSum = moved(now, base, 'request_duration_seconds_sum', plain);
    assert.ok(upstreamSum >= 0 && upstreamSum <= requestSum + 0.001 * K, `upstream time ${upstreamSum} within request time ${requestSum}`);
  });

  test('requests a canary takes carry its upstream as the canary label; the others an empty one', async () => {
    const base = await scrape(portico);
    const app = { ingress: 'app', host: 'app.test', status: '200' };
    const [toCanary, toMain] = [13, 17];
    for (let i = 0; i < toCanary; i++) {
      const r = await raw(portico.http, 'GET / HTTP/1.1\r\nHost: app.test\r\nX-Canary: always\r\nConnection: close\r\n\r\n');
      assert.equal(r.head, 'HTTP/1.1 200');
    }
    for (let i = 0; i < toMain; i++) assert.equal(await who(portico.http, 'app.test', '/'), 'main');
    await until('all counted', async () => moved(await scrape(portico), base, 'requests', app) >= toCanary + toMain, 10_000, 200);
    const now = await scrape(portico);
    assert.equal(moved(now, base, 'requests', app), toCanary + toMain);
    assert.equal(moved(now, base, 'requests', { ...app, canary: '' }), toMain);
    const canaryLabels = new Set(now.samples.filter((s) => s.name === `${M}requests` && s.labels['host'] === 'app.test' && (s.labels['canary'] ?? '') !== '').map((s) => s.labels['canary']));
    assert.deepEqual([...canaryLabels], ['default_canary_80'], 'the canary upstream names the label');
  });
});
