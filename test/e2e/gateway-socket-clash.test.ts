// End to end, local mode, real nginx: an HTTP listener and a newer Gateway's TCP listener mapped by --gateway-port-map
// to one local port. nginx cannot bind that port in both its http and stream sections; the TCP listener is
// PortUnavailable (spec.listeners[0].port) and the configuration that opens the port for HTTP is applied.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startBackend, type Backend } from '../support/backends.js';
import { manifestDir, serviceFor, writeManifests } from '../support/manifests.js';
import { freePort, get, startPortico, until, who, type Running } from '../support/portico.js';
import { gatewayClass, httpRoute } from '../support/gateway.js';
import type { GatewayDoc } from '../../src/inspect/gateway.js';

function gateway(name: string, created: string, listener: Record<string, unknown>): unknown {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name, namespace: 'default', creationTimestamp: created },
    spec: { gatewayClassName: 'portico', listeners: [listener] },
  };
}

describe('an HTTP and a TCP listener on one local port', () => {
  let backend: Backend;
  let dir = '';
  let p: Running;
  let shared = 0;

  before(async () => {
    backend = await startBackend('web');
    shared = await freePort();
    dir = await manifestDir();
    await writeManifests(dir, 'all.yaml', [
      gatewayClass('portico'),
      ...serviceFor('web', [backend]),
      gateway('web', '2026-01-01T00:00:00Z', { name: 'http', port: 8080, protocol: 'HTTP' }),
      gateway('db', '2026-02-01T00:00:00Z', { name: 'tcp', port: 5432, protocol: 'TCP' }),
      httpRoute('web', { parentRefs: [{ name: 'web' }], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] }),
    ]);
    p = await startPortico(['--manifests', dir, '--gateway-port-map', `8080=${String(shared)},5432=${String(shared)}`]);
  });
  after(async () => {
    assert.equal(await p?.stop(), 0);
    await backend?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('the older HTTP listener is served on the port; the TCP listener is PortUnavailable naming its port field', async () => {
    await until('the HTTP route on the shared local port', async () => {
      try {
        return (await who(shared, 'any.test', '/')) === 'web';
      } catch {
        return false;
      }
    });
    const doc = JSON.parse((await get(p.healthz, 'localhost', '/debug/gateway')).body) as GatewayDoc;
    const accepted = doc.gateways.find((g) => g.name === 'db')?.listeners[0]?.conditions.find((c) => c.type === 'Accepted');
    assert.equal(accepted?.reason, 'PortUnavailable');
    assert.match(accepted?.message ?? '', /listener http \(HTTP, port 8080\) of Gateway default\/web, older or first, serves it/);
    await until('the Warning naming the field', () => p.output.some((l) => l.includes('Gateway default/db spec.listeners[0].port')));
    assert.ok(!p.output.some((l) => /nginx -t|Address already in use/.test(l) && /fail|emerg/i.test(l)), 'no failed nginx test or reload');
  });
});
