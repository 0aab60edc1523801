// ingress-nginx e2e servicebackend/service_externalname.go: Services of type ExternalName as backends. Portico resolves
// the name itself (all addresses; the port from the backend reference) and pushes the addresses as the backend's
// endpoints (docs/adr/0019). The names used resolve on any machine: `localhost`, `localhost.` and IP addresses; a
// name changed between two loopback addresses shows the update. Local mode allows loopback targets off Portico's ports.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Service } from '../../../src/model/input.js';
import { backendObjects } from '../../support/manifests.js';
import { until } from '../../support/portico.js';
import { ann, echoed, ing, startSuite, type Suite } from '../harness.js';

/** A Service of type ExternalName; `ports` as the Service declares them (none: the backend reference's number is used). */
function externalName(name: string, target: string, ports?: { name: string; port: number; targetPort: number }[]): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { type: 'ExternalName', externalName: target, ...(ports === undefined ? {} : { ports }) } };
}

/** A backend answering its id in header x-backend, on `host` at `port` (0: any). */
async function backendOn(id: string, host: string, port: number): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'x-backend': id });
    res.end(id);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return server;
}

const close = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => {
      resolve();
    });
  });

void describe('servicebackend/service_externalname.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite();
  });
  after(() => s.stop());

  /** Puts `svc` and an Ingress for `host` to it at `port`, waits until the echo backend answers the host. */
  const serve = async (host: string, svc: Service, port: number | string, annotations: Record<string, string> = {}) => {
    const name = svc.metadata?.name ?? '';
    const ready = async () => {
      const r = await s.get(host, '/get');
      return r.status === 200 && r.headers['x-backend'] === 'echo';
    };
    await s.put(`${name}.json`, [svc, ing(name, host, { paths: [{ path: '/', type: 'Prefix', service: name, port }], annotations })], ready);
  };

  test('works with external name set to incomplete fqdn', async () => {
    // `localhost` has no dot: the resolver completes it (the hosts file here; a search domain in a cluster).
    await serve('incomplete.externalname.test', externalName('incomplete', 'localhost'), s.echo.port);
    const r = await s.get('incomplete.externalname.test', '/get');
    assert.equal(r.status, 200);
    assert.equal(echoed(r).url, '/get');
  });

  test('should return 200 for service type=ExternalName without a port defined', async () => {
    // No Service port: the Ingress's port number is the port connected to.
    await serve('noport.externalname.test', externalName('noport', '127.0.0.1'), s.echo.port, ann({ 'upstream-vhost': 'localhost' }));
    const r = await s.get('noport.externalname.test', '/get');
    assert.equal(r.status, 200);
    assert.equal(echoed(r).headers.host, 'localhost');
  });

  test('should return 200 for service type=ExternalName with a port defined', async () => {
    // Service port 80 → targetPort: the echo backend's port.
    await serve('port.externalname.test', externalName('withport', '127.0.0.1', [{ name: 'http', port: 80, targetPort: s.echo.port }]), 80);
    assert.equal((await s.get('port.externalname.test', '/get')).status, 200);
  });

  test('should return status 502 for service type=ExternalName with an invalid host', async () => {
    // No endpoint comes of a name that does not resolve: Portico answers 503 (ingress-nginx: 502), and warns on the Service.
    const host = 'invalid.externalname.test';
    const svc = externalName('invalid', 'invalid.hostname');
    await s.put('invalid.json', [svc, ing('invalid', host, { paths: [{ path: '/', type: 'Prefix', service: 'invalid', port: 80 }] })], async () => (await s.get(host, '/get')).status === 503);
    await until('a Warning naming the Service', () => Promise.resolve(s.portico.output.some((l) => l.includes('Service default/invalid spec.externalName') && l.includes('does not resolve'))), 10_000);
    const r = await s.get(host, '/get');
    assert.ok(r.status >= 500 && r.status < 600, String(r.status));
  });

  test('should return 200 for service type=ExternalName using a port name', async () => {
    await serve('portname.externalname.test', externalName('portname', '127.0.0.1', [{ name: 'echo', port: 80, targetPort: s.echo.port }]), 'echo');
    assert.equal((await s.get('portname.externalname.test', '/get')).status, 200);
  });

  test('should return 200 for service type=ExternalName using FQDN with trailing dot', async () => {
    await serve('dot.externalname.test', externalName('dot', 'localhost.'), s.echo.port);
    assert.equal((await s.get('dot.externalname.test', '/get')).status, 200);
  });

  test('should update the external name after a service update', async () => {
    // Two backends on one port of two loopback addresses: the name's change moves the traffic, without a reload.
    const first = await backendOn('first', '127.0.0.2', 0);
    const port = (first.address() as AddressInfo).port;
    const second = await backendOn('second', '127.0.0.3', port);
    const host = 'update.externalname.test';
    const to = async (id: string) => {
      const r = await s.get(host, '/get');
      return r.status === 200 && r.headers['x-backend'] === id;
    };
    try {
      const svc = (target: string) => externalName('update', target, [{ name: 'echo', port: 80, targetPort: port }]);
      const ingress = ing('update', host, { paths: [{ path: '/', type: 'Prefix', service: 'update', port: 'echo' }] });
      await s.put('update.json', [svc('127.0.0.2'), ingress], () => to('first'));
      await s.put('update.json', [svc('127.0.0.3'), ingress], () => to('second'));
      assert.equal((await s.get(host, '/get')).headers['x-backend'], 'second');
    } finally {
      await close(first);
      await close(second);
    }
  });

  test('should sync ingress on external name service addition/deletion', async () => {
    const host = 'sync.externalname.test';
    await s.put('sync-ing.json', [ing('sync', host, { paths: [{ path: '/', type: 'Prefix', service: 'sync', port: s.echo.port }] })], async () => (await s.get(host, '/')).status === 503);
    // A marker Ingress in the Service's file shows when the file was taken.
    const marker = [externalName('sync', '127.0.0.1'), ...backendObjects('sync-marker', s.echo.port), ing('sync-marker', `marker.${host}`, { service: 'sync-marker' })];
    await s.put('sync-svc.json', marker, async () => (await s.get(`marker.${host}`, '/')).status === 200);
    const r = await s.get(host, '/');
    assert.equal(r.status, 200);
    assert.equal(r.headers['x-backend'], 'echo');
    await s.put('sync-svc.json', [], async () => (await s.get(`marker.${host}`, '/')).status === 404);
    assert.equal((await s.get(host, '/')).status, 503);
  });
});
