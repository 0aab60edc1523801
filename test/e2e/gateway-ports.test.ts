// End to end, local mode, real nginx: Gateway listeners on ports other than 80 and 443 (--gateway-port-map maps them
// to free local ports). A route of one listener port is served there and on no other; a port opened and closed while
// running is a listen socket and then a refused connection; a port that is Portico's own is PortUnavailable.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startBackend, type Backend } from '../support/backends.js';
import { manifestDir, serviceFor, writeManifests } from '../support/manifests.js';
import { freePort, get, startPortico, syncCount, until, who, type Running } from '../support/portico.js';
import { gateway, gatewayClass, httpRoute, type ListenerSpec } from '../support/gateway.js';
import type { GatewayDoc } from '../../src/inspect/gateway.js';

/** A route of `host` on the listener port `port` of Gateway web, to Service `svc`. */
const routeOn = (name: string, port: number, host: string, svc: string, path = '/'): unknown =>
  httpRoute(name, { parentRefs: [{ name: 'web', port }], hostnames: [host], rules: [{ matches: [{ path: { type: 'PathPrefix', value: path } }], backendRefs: [{ name: svc, port: 80 }] }] });

/** The answer on a local port: the backend, the status, or `refused` when nothing listens there. */
async function whoOn(port: number, host: string, path: string): Promise<string> {
  try {
    return await who(port, host, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ECONNREFUSED') return 'refused';
    throw err;
  }
}

describe('Gateway listeners on other ports', () => {
  let backends: Backend[] = [];
  let dir = '';
  let p: Running;
  let local8080 = 0;
  let local8090 = 0;
  const objects = (extra: readonly ListenerSpec[], routes: readonly unknown[]): unknown[] => {
    const [a, b, c] = backends as [Backend, Backend, Backend];
    return [
      gatewayClass('portico'),
      ...serviceFor('a', [a]),
      ...serviceFor('b', [b]),
      ...serviceFor('c', [c]),
      gateway('web', [{ name: 'http' }, { name: 'alt', port: 8080 }, ...extra]),
      routeOn('on-80', 80, 'ports.test', 'a'),
      routeOn('on-8080', 8080, 'ports.test', 'b'),
      // only on 8080: its path must not leak to port 80, whose route answers it
      routeOn('only-8080', 8080, 'ports.test', 'c', '/only'),
      ...routes,
    ];
  };

  before(async () => {
    backends = await Promise.all(['a', 'b', 'c'].map((id) => startBackend(id)));
    [local8080, local8090] = [await freePort(), await freePort()];
    dir = await manifestDir();
    await writeManifests(dir, 'all.yaml', objects([], []));
    p = await startPortico(['--manifests', dir, '--gateway-port-map', `8080=${local8080},8090=${local8090}`]);
  });
  after(async () => {
    assert.equal(await p?.stop(), 0);
    await Promise.all(backends.map((b) => b.close()));
    await rm(dir, { recursive: true, force: true });
  });

  test('a route of one listener port is served on that port and not on the other', async () => {
    await until('ports.test on 8080', async () => (await whoOn(local8080, 'ports.test', '/')) === 'b');
    assert.deepEqual(
      [await who(p.http, 'ports.test', '/'), await who(p.http, 'ports.test', '/only'), await who(local8080, 'ports.test', '/only'), await who(local8080, 'ports.test', '/x')],
      ['a', 'a', 'c', 'b'],
    );
  });

  test('a listener port added while running opens a listen socket (a reload); removed, the connection is refused', async () => {
    assert.equal(await whoOn(local8090, 'ports.test', '/'), 'refused');
    const reloads = syncCount(p.output, 'reload');
    await writeManifests(dir, 'all.yaml', objects([{ name: 'third', port: 8090 }], [routeOn('on-8090', 8090, 'ports.test', 'c')]));
    await until('ports.test on 8090', async () => (await whoOn(local8090, 'ports.test', '/')) === 'c');
    await until('the reload logged', () => syncCount(p.output, 'reload') > reloads);
    // each port keeps its own routes: 8090's route is not on 8080 or 80, and theirs are not on 8090
    assert.deepEqual([await who(local8080, 'ports.test', '/'), await who(p.http, 'ports.test', '/'), await who(local8090, 'ports.test', '/only')], ['b', 'a', 'c']);
    await writeManifests(dir, 'all.yaml', objects([], []));
    await until('8090 closed', async () => (await whoOn(local8090, 'ports.test', '/')) === 'refused');
    assert.equal(await who(local8080, 'ports.test', '/'), 'b');
  });

  test('a listener on a port --gateway-port-map does not list (here --healthz-port) is PortUnavailable, naming the flag; the others are served', async () => {
    await writeManifests(dir, 'all.yaml', objects([{ name: 'clash', port: p.healthz }], []));
    const listener = async (): Promise<{ name: string; conditions: readonly { type: string; status: string; reason: string; message: string }[] } | undefined> => {
      const doc = JSON.parse((await get(p.healthz, 'localhost', '/debug/gateway')).body) as GatewayDoc;
      return doc.gateways.find((g) => g.name === 'web')?.listeners.find((l) => l.name === 'clash');
    };
    await until('clash reported', async () => (await listener()) !== undefined);
    const accepted = (await listener())?.conditions.find((c) => c.type === 'Accepted');
    assert.equal(`${accepted?.status ?? ''} ${accepted?.reason ?? ''}`, 'False PortUnavailable');
    // never opened: not listed (the own-port check itself: test/unit/gateway-ports.test.ts, with the port listed)
    assert.match(accepted?.message ?? '', new RegExp(`port ${p.healthz} is not listed in --gateway-port-map`));
    const alt = (await get(p.healthz, 'localhost', '/debug/gateway')).body;
    assert.match(alt, /"name": "alt"[\s\S]*?"reason": "Accepted"/);
    assert.equal(await who(local8080, 'ports.test', '/'), 'b');
    assert.equal((await get(p.healthz, 'localhost', '/healthz')).status, 200, 'healthz still answers Portico, not nginx');
  });
});
