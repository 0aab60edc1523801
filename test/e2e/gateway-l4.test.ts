// End to end: TCPRoute and UDPRoute on Gateway TCP and UDP listeners, through real nginx's stream module to real
// backends on 127.0.0.1 (docs/adr/0023): round trips, weights, an endpoint change (a reload, counted as a stream
// reload), a route removed while running, a listener on one of Portico's own ports and an unknown backend reported.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { slice } from '../support/objects.js';
import { manifestFolder, type ManifestDir } from '../support/manifests.js';
import { freePort, get, startPortico, until, type Running } from '../support/portico.js';
import { tcpBackend, tcpWho, udpAsk, udpBackend, type StreamBackend } from '../support/stream-backends.js';
import { gatewayClass } from '../support/gateway.js';

const G = 'gateway.networking.k8s.io/v1';

function service(name: string, port: number, protocol: 'TCP' | 'UDP', backends: readonly StreamBackend[]): unknown[] {
  return [
    { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ports: [{ name: 'p', port, protocol }] } },
    ...backends.map((b, i) => ({ ...slice(name, b.port, ['127.0.0.1'], { name: `${name}-${i}`, portName: 'p' }), ports: [{ name: 'p', port: b.port, protocol }] })),
  ];
}
const route = (kind: 'TCPRoute' | 'UDPRoute', name: string, sectionName: string, backendRefs: readonly Record<string, unknown>[]): unknown => ({
  apiVersion: G,
  kind,
  metadata: { name, namespace: 'default' },
  spec: { parentRefs: [{ name: 'l4', sectionName }], rules: [{ backendRefs }] },
});
const streamReloads = (p: Running): number => Math.max(0, ...p.output.filter((l) => l.includes('"msg":"sync"')).map((l) => Number(/"streamReloads":(\d+)/.exec(l)?.[1] ?? 0)));

describe('TCPRoute and UDPRoute through nginx', () => {
  const tcp: StreamBackend[] = [];
  const udp: StreamBackend[] = [];
  let m: ManifestDir;
  let p: Running;
  let healthzPort = 0;
  const local = { tcp: 0, udp: 0 };

  const objects = (db: readonly StreamBackend[], routes: readonly unknown[]): unknown[] => [
    gatewayClass('portico'),
    {
      apiVersion: G,
      kind: 'Gateway',
      metadata: { name: 'l4', namespace: 'default' },
      spec: {
        gatewayClassName: 'portico',
        listeners: [
          { name: 'db', protocol: 'TCP', port: 5432 },
          { name: 'dns', protocol: 'UDP', port: 53 },
          // once known, the healthz port: not listed in --gateway-port-map (and Portico's own), so not served (PortUnavailable naming the field)
          ...(healthzPort > 0 ? [{ name: 'own', protocol: 'TCP', port: healthzPort }] : []),
        ],
      },
    },
    ...service('db-a', 5432, 'TCP', db),
    ...service('db-b', 5432, 'TCP', [tcp[2] as StreamBackend]),
    ...service('dns', 53, 'UDP', udp),
    ...routes,
  ];
  const dbRoute = route('TCPRoute', 'db', 'db', [
    { name: 'db-a', port: 5432, weight: 3 },
    { name: 'db-b', port: 5432, weight: 1 },
    { name: 'db-missing', port: 5432, weight: 1 },
  ]);
  const dnsRoute = route('UDPRoute', 'dns', 'dns', [{ name: 'dns', port: 53 }]);

  before(async () => {
    for (const id of ['a1', 'a2', 'b1', 'a3']) tcp.push(await tcpBackend(id));
    udp.push(await udpBackend('u1'));
    local.tcp = await freePort();
    local.udp = await freePort();
    m = await manifestFolder();
    await m.write('l4.json', objects(tcp.slice(0, 2), [dbRoute, dnsRoute]));
    // --stream-js-module= (empty): the static upstreams without njs, whose endpoint changes reload (docs/adr/0041)
    p = await startPortico(['--manifests', m.dir, '--gateway-port-map', `5432=${local.tcp},53=${local.udp}`, '--stream-js-module=']);
  });
  after(async () => {
    await p?.stop();
    await m?.remove();
    await Promise.all([...tcp, ...udp].map((b) => b.close()));
  });

  test('a TCP round trip and a UDP round trip through the listeners', async () => {
    await until('the TCP listener answers', async () => ['a1', 'a2', 'b1'].includes(await tcpWho(local.tcp)), 10_000, 100);
    await until('the UDP listener answers', async () => (await udpAsk(local.udp, 'q')) === 'u1:q', 10_000, 100);
    // without njs: static upstreams in nginx.conf, and one info line saying so (docs/adr/0041)
    assert.equal(p.output.filter((l) => l.includes('--stream-js-module is empty')).length, 1);
    assert.ok(!(await readFile(join(p.workDir, 'nginx.conf'), 'utf8')).includes('ngx_stream_js_module'));
  });

  test('weights: db-a (two endpoints) takes 3 of 4 connections, db-b 1; the unknown backend none', async () => {
    const seen = new Map<string, number>();
    for (let i = 0; i < 80; i++) {
      const id = await tcpWho(local.tcp);
      seen.set(id, (seen.get(id) ?? 0) + 1);
    }
    const a = (seen.get('a1') ?? 0) + (seen.get('a2') ?? 0);
    assert.deepEqual([...seen.keys()].sort(), ['a1', 'a2', 'b1'], JSON.stringify([...seen]));
    // nginx's weighted round robin is exact per worker: 60 and 20 with one worker, within a few with two
    assert.ok(Math.abs(a - 60) <= 6, `db-a answered ${a} of 80 (${JSON.stringify([...seen])})`);
  });

  test('bad input is reported: the unknown backend and the listener on a port of Portico', async () => {
    healthzPort = p.healthz;
    await m.write('l4.json', objects(tcp.slice(0, 2), [dbRoute, dnsRoute]));
    const warned = (re: RegExp): boolean => p.output.some((l) => re.test(l));
    await until(
      'the Warnings',
      () => warned(/TCPRoute default\/db spec\.rules\[0\]\.backendRefs\[2\]: BackendNotFound/) && warned(/Gateway default\/l4 spec\.listeners\[2\]\.port: .*not listed in --gateway-port-map/),
      10_000,
      100,
    );
    const doc = JSON.parse((await get(p.healthz, 'localhost', '/debug/gateway')).body) as {
      gateways: { listeners: { name: string; attachedRoutes: number; conditions: { type: string; status: string; reason: string }[] }[] }[];
      tcpRoutes: { name: string; parents: { conditions: { type: string; status: string; reason: string }[] }[] }[];
    };
    const own = doc.gateways[0]?.listeners.find((l) => l.name === 'own');
    assert.equal(own?.conditions.find((c) => c.type === 'Accepted')?.reason, 'PortUnavailable');
    const db = doc.tcpRoutes.find((r) => r.name === 'db')?.parents[0]?.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`);
    assert.deepEqual(db, ['Accepted=True/Accepted', 'ResolvedRefs=False/BackendNotFound']);
  });

  test('an endpoint replaced is served after a reload, counted as a stream reload', async () => {
    const before = streamReloads(p);
    await m.write('l4.json', objects([tcp[3] as StreamBackend], [dbRoute, dnsRoute]));
    let row = 0;
    await until(
      'a3 answering in place of a1 and a2',
      async () => {
        const id = await tcpWho(local.tcp);
        row = id === 'a3' || id === 'b1' ? row + 1 : 0;
        return row >= 8;
      },
      15_000,
      50,
    );
    for (let i = 0; i < 12; i++) assert.ok(['a3', 'b1'].includes(await tcpWho(local.tcp)));
    await until('the stream reload counted', () => streamReloads(p) > before, 10_000, 100);
  });

  test('a route removed while running: its listener stops answering, the other keeps working', async () => {
    await m.write('l4.json', objects([tcp[3] as StreamBackend], [dnsRoute]));
    await until(
      'the TCP listener closed',
      async () => {
        try {
          return (await tcpWho(local.tcp)) === '';
        } catch {
          return true;
        }
      },
      15_000,
      100,
    );
    assert.equal(await udpAsk(local.udp, 'still'), 'u1:still');
  });
});
