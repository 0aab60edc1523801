// ingress-nginx e2e servicebackend/service_externalname.go: Services of type ExternalName as backends. Portico
// proxies only to EndpointSlice endpoints, so these are an open gap but for the 5xx of an unresolvable name.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../../src/model/input.js';
import { backendObjects } from '../../support/manifests.js';
import { ann, ing, startSuite, type Suite } from '../harness.js';

/** A Service of type ExternalName; `port` also names it `http`. */
function externalName(name: string, externalName: string, port?: number): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default' },
    spec: { type: 'ExternalName', externalName, ...(port === undefined ? {} : { ports: [{ name: 'http', port, targetPort: port }] }) },
  };
}

void describe('servicebackend/service_externalname.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite();
  });
  after(() => s.stop());

  /** Puts `svc` and an Ingress for `host` to it (port `port`), waits until the host answers anything but 404. */
  const serve = async (host: string, svc: Service, port: number | string = 80, annotations: Record<string, string> = {}) => {
    const name = svc.metadata?.name ?? '';
    await s.put(`${name}.json`, [svc, ing(name, host, { paths: [{ path: '/', type: 'Prefix', service: name, port }], annotations })], async () => (await s.get(host, '/')).status !== 404);
  };

  test('works with external name set to incomplete fqdn', { todo: 'ExternalName Services as backends' }, async () => {
    await serve('incomplete.externalname.test', externalName('incomplete', 'localhost', s.echo.port), s.echo.port);
    assert.equal((await s.get('incomplete.externalname.test', '/get')).status, 200);
  });

  test('should return 200 for service type=ExternalName without a port defined', { todo: 'ExternalName Services as backends' }, async () => {
    await serve('noport.externalname.test', externalName('noport', 'localhost'), s.echo.port, ann({ 'upstream-vhost': 'localhost' }));
    assert.equal((await s.get('noport.externalname.test', '/get')).status, 200);
  });

  test('should return 200 for service type=ExternalName with a port defined', { todo: 'ExternalName Services as backends' }, async () => {
    await serve('port.externalname.test', externalName('withport', '127.0.0.1', s.echo.port), s.echo.port);
    assert.equal((await s.get('port.externalname.test', '/get')).status, 200);
  });

  test('should return status 502 for service type=ExternalName with an invalid host', async () => {
    // No endpoint can come of a name that does not resolve: a 5xx (Portico: 503; ingress-nginx: 502).
    await serve('invalid.externalname.test', externalName('invalid', 'invalid.hostname'));
    const r = await s.get('invalid.externalname.test', '/get');
    assert.ok(r.status >= 500 && r.status < 600, String(r.status));
  });

  test('should return 200 for service type=ExternalName using a port name', { todo: 'ExternalName Services as backends' }, async () => {
    await serve('portname.externalname.test', externalName('portname', '127.0.0.1', s.echo.port), 'http');
    assert.equal((await s.get('portname.externalname.test', '/get')).status, 200);
  });

  test('should return 200 for service type=ExternalName using FQDN with trailing dot', { todo: 'ExternalName Services as backends' }, async () => {
    await serve('dot.externalname.test', externalName('dot', 'localhost.', s.echo.port), s.echo.port);
    assert.equal((await s.get('dot.externalname.test', '/get')).status, 200);
  });

  test('should update the external name after a service update', { todo: 'ExternalName Services as backends' }, async () => {
    await serve('update.externalname.test', externalName('update', 'invalid.hostname', s.echo.port), s.echo.port);
    await serve('update.externalname.test', externalName('update', '127.0.0.1', s.echo.port), s.echo.port);
    assert.equal((await s.get('update.externalname.test', '/get')).status, 200);
  });

  test('should sync ingress on external name service addition/deletion', { todo: 'ExternalName Services as backends' }, async () => {
    const host = 'sync.externalname.test';
    await s.put('sync-ing.json', [ing('sync', host, { paths: [{ path: '/', type: 'Prefix', service: 'sync', port: s.echo.port }] })], async () => (await s.get(host, '/')).status === 503);
    // A marker Service in the same file shows the file was taken.
    const marker = [externalName('sync', '127.0.0.1', s.echo.port), ...backendObjects('sync-marker', s.echo.port), ing('sync-marker', `marker.${host}`, { service: 'sync-marker' })];
    await s.put('sync-svc.json', marker, async () => (await s.get(`marker.${host}`, '/')).status === 200);
    assert.equal((await s.get(host, '/')).status, 200);
    await s.put('sync-svc.json', [], async () => (await s.get(`marker.${host}`, '/')).status === 404);
    assert.equal((await s.get(host, '/')).status, 503);
  });
});
