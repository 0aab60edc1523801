// ingress-nginx e2e settings/proxy_protocol.go: use-proxy-protocol on the traffic ports, alone and with
// use-forwarded-headers (forwarded-for-proxy-protocol-header decides which address nginx believes), and a TCP service
// whose PROXY line names the client in the stream access log.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { makeCert } from '../../support/certs.js';
import { configMap } from '../../support/manifests.js';
import { freePort, until } from '../../support/portico.js';
import { tlsSecret } from '../../support/tls-manifests.js';
import { ing, rawEchoed, rawExchange, startSuite, type Suite } from '../harness.js';

const HOST = 'proxy-protocol';
const TLS_HOST = 'proxy-protocol-tls';
const request = `GET / HTTP/1.1\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`;
const proxyLine = (dstPort: number) => `PROXY TCP4 192.168.0.1 192.168.0.11 56324 ${dstPort}\r\n`;

void describe('settings/proxy_protocol.go', () => {
  let s: Suite;
  let tcpPort = 0;
  const certDir = mkdtempSync(join(tmpdir(), 'portico-pp-'));
  /** Waits until the raw answer through the PROXY protocol is the echo backend's. */
  const served = async () => (await rawExchange(s.portico.http, proxyLine(80) + request)).includes('"id":"echo"');

  before(async () => {
    // The HTTPS case has a host of its own: a TLS host redirects plain HTTP, which the other cases read.
    const pem = makeCert(certDir, TLS_HOST, { sans: [TLS_HOST] });
    // A TCP service whose clients send a PROXY protocol line (tcp-services-configmap's `:PROXY`), as upstream's 8080.
    tcpPort = await freePort();
    s = await startSuite({
      config: { 'use-proxy-protocol': 'true' },
      args: ['--tcp-services-configmap', 'default/tcp-services'],
      objects: [tlsSecret('pp-tls', pem), configMap('tcp-services', { [String(tcpPort)]: 'default/echo:80:PROXY' })],
    });
    const tlsIng = ing('pp-tls', TLS_HOST);
    await s.put('ingress.json', [ing('pp', HOST), { ...tlsIng, spec: { ...tlsIng.spec, tls: [{ hosts: [TLS_HOST], secretName: 'pp-tls' }] } }], served);
  });
  after(async () => {
    await s.stop();
    rmSync(certDir, { recursive: true, force: true });
  });

  test('should respect port passed by the PROXY Protocol', async () => {
    const e = rawEchoed(await rawExchange(s.portico.http, proxyLine(1234) + request));
    assert.equal(e.headers['host'], HOST);
    assert.equal(e.headers['x-forwarded-port'], '1234');
    assert.equal(e.headers['x-forwarded-proto'], 'http');
    assert.equal(e.headers['x-forwarded-for'], '192.168.0.1');
  });

  test('should respect proto passed by the PROXY Protocol server port', async () => {
    const e = rawEchoed(await rawExchange(s.portico.http, proxyLine(443) + request));
    assert.equal(e.headers['x-forwarded-port'], '443');
    assert.equal(e.headers['x-forwarded-proto'], 'https');
    assert.equal(e.headers['x-forwarded-for'], '192.168.0.1');
  });

  test('should enable PROXY Protocol for HTTPS', async () => {
    const tlsRequest = request.replace(`Host: ${HOST}`, `Host: ${TLS_HOST}`);
    const e = rawEchoed(await rawExchange(s.portico.https, proxyLine(1234), { servername: TLS_HOST, request: tlsRequest }));
    assert.equal(e.headers['host'], TLS_HOST);
    assert.equal(e.headers['x-forwarded-port'], '1234');
    assert.equal(e.headers['x-forwarded-proto'], 'https');
    assert.equal(e.headers['x-scheme'], 'https');
    assert.equal(e.headers['x-forwarded-for'], '192.168.0.1');
  });

  test('should enable PROXY Protocol for TCP', async () => {
    await s.config({ 'use-proxy-protocol': 'true', 'enable-real-ip': 'true' }, served);
    const line = `PROXY TCP4 192.168.0.1 192.168.0.11 56324 ${tcpPort}\r\n`;
    const log = () => readFile(join(s.portico.workDir, 'logs/access.log'), 'utf8').catch(() => '');
    // The stream log's line for the connection names the client the PROXY line gave, not the connection's 127.0.0.1.
    await until(
      'a stream access line for 192.168.0.1',
      async () => {
        const answer = await rawExchange(tcpPort, line + request);
        assert.match(answer, /"id":"echo"/);
        return until('flushed', async () => /^\[192\.168\.0\.1\] \[[^\]]+\] TCP 200 /m.test(await log()), 1_500)
          .then(() => true)
          .catch(() => false);
      },
      20_000,
      0,
    );
  });

  const withXff = `GET / HTTP/1.1\r\nHost: ${HOST}\r\nX-Forwarded-For: 192.168.0.111\r\nConnection: close\r\n\r\n`;
  const forwardedFor = async () => rawEchoed(await rawExchange(s.portico.http, proxyLine(1234) + withXff)).headers['x-forwarded-for'];

  test('should not trust X-Forwarded headers when the client IP address is not trusted', async () => {
    // First trust the PROXY protocol address (X-Forwarded-For is believed), so that the switch below is seen to land.
    const both = { 'use-proxy-protocol': 'true', 'use-forwarded-headers': 'true' };
    await s.config({ ...both, 'proxy-real-ip-cidr': '127.0.0.1/32,192.168.0.1/32' }, async () => (await forwardedFor()) === '192.168.0.111');
    // The connection comes from 127.0.0.1 (trusted, the load balancer); the PROXY protocol address is not trusted.
    await s.config({ ...both, 'proxy-real-ip-cidr': '127.0.0.1/32' }, async () => (await forwardedFor()) === '192.168.0.1');
    assert.equal(await forwardedFor(), '192.168.0.1');
    // A client naming forwarded-for-proxy-protocol-header itself is refused (Portico; ingress-nginx would believe it).
    const spoof = `GET / HTTP/1.1\r\nHost: ${HOST}\r\nX-Forwarded-For-Proxy-Protocol: 10.9.9.9\r\nConnection: close\r\n\r\n`;
    assert.match(await rawExchange(s.portico.http, proxyLine(1234) + spoof), /^HTTP\/1\.1 400 /);
  });

  test('should trust X-Forwarded headers when the client IP address is trusted', async () => {
    const cfg = { 'use-proxy-protocol': 'true', 'use-forwarded-headers': 'true', 'proxy-real-ip-cidr': '127.0.0.1/32,10.0.0.0/8,192.168.0.1/32' };
    await s.config(cfg, async () => (await forwardedFor()) === '192.168.0.111');
    assert.equal(await forwardedFor(), '192.168.0.111');
    // forwarded-for-proxy-protocol-header renames the header nginx writes its choice into; the answer stays.
    // nginx writes that header into the request it passes on, so the backend shows which header it was.
    const header = async () => rawEchoed(await rawExchange(s.portico.http, proxyLine(1234) + withXff)).headers;
    assert.equal((await header())['x-forwarded-for-proxy-protocol'], '192.168.0.111');
    await s.config({ ...cfg, 'forwarded-for-proxy-protocol-header': 'X-Portico-Client' }, async () => (await header())['x-portico-client'] === '192.168.0.111');
    const h = await header();
    assert.equal(h['x-forwarded-for'], '192.168.0.111');
    assert.equal(h['x-forwarded-for-proxy-protocol'], undefined);
  });
});
