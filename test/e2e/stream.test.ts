// End to end: TCP and UDP services from the ConfigMaps, through real nginx to real backends on 127.0.0.1.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress, ingressClass, slice } from '../support/objects.js';
import { backendObjects, configMap, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { freePort, get, startPortico, until, who, type Running } from '../support/portico.js';
import { tcpAsk, tcpBackend, tcpWho, udpAsk, udpBackend, type StreamBackend } from '../support/stream-backends.js';

/** A Service with one named port of `protocol`, and one EndpointSlice per backend (each 127.0.0.1 on its own port). */
function streamService(name: string, port: number, protocol: 'TCP' | 'UDP', backends: readonly StreamBackend[]): unknown[] {
  const portName = protocol === 'TCP' ? 'tcp' : 'udp';
  return [
    { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ports: [{ name: portName, port, protocol }] } },
    ...backends.map((b, i) => {
      const s = slice(name, b.port, ['127.0.0.1'], { name: `${name}-${i}`, portName });
      return { ...s, ports: [{ name: portName, port: b.port, protocol }] };
    }),
  ];
}

const streamReloads = (p: Running): number => Math.max(0, ...p.output.filter((l) => l.includes('"msg":"sync"')).map((l) => Number(/"streamReloads":(\d+)/.exec(l)?.[1] ?? 0)));

describe('TCP and UDP services', () => {
  const tcp: StreamBackend[] = [];
  const udp: StreamBackend[] = [];
  let pp: StreamBackend;
  let web: Backend;
  let m: ManifestDir;
  let p: Running;
  const ports = { db: 0, proxy: 0, added: 0, dns: 0 };
  const tcpMap = (extra: Record<string, string> = {}): Record<string, string> => ({
    [String(ports.db)]: 'default/db:5432',
    [String(ports.proxy)]: 'default/pp:9000:PROXY:PROXY',
    // Hostile and invalid entries: each skipped with a Warning naming the ConfigMap and the key.
    abc: 'default/db:5432',
    '70000': 'default/db:5432',
    [String(ports.added + 1)]: 'default/db:5432;\n} server { listen 1; }',
    [String(ports.added + 2)]: 'default/missing:5432',
    [String(ports.added + 3)]: 'default/db:9999',
    [String(ports.added + 4)]: 'db',
    ...extra,
  });

  before(async () => {
    for (const id of ['t1', 't2', 't3']) tcp.push(await tcpBackend(id));
    for (const id of ['u1', 'u2']) udp.push(await udpBackend(id));
    pp = await tcpBackend('pp', true);
    web = await startBackend('w1');
    ports.db = await freePort();
    ports.proxy = await freePort();
    ports.added = await freePort();
    ports.dns = await freePort();
    m = await manifestFolder();
    await m.write('svc.json', [
      ...streamService('db', 5432, 'TCP', tcp.slice(0, 2)),
      ...streamService('db2', 5433, 'TCP', [tcp[2] as StreamBackend]),
      ...streamService('pp', 9000, 'TCP', [pp]),
      ...streamService('dns', 53, 'UDP', udp),
      ...backendObjects('web', web.port),
      ingressClass('portico'),
      ingress('web', { className: 'portico', host: 'web.test', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }),
    ]);
    await m.write('cm.json', [configMap('tcp', tcpMap(), 'ingress'), configMap('udp', { [String(ports.dns)]: 'default/dns:udp' }, 'ingress')]);
    p = await startPortico(['--manifests', m.dir, '--tcp-services-configmap', 'ingress/tcp', '--udp-services-configmap=ingress/udp']);
  });

  after(async () => {
    await p?.stop();
    for (const b of [...tcp, ...udp, pp]) await b.close();
    await web?.close();
    await m?.remove();
  });

  test('TCP is reached through its port and spread over two endpoints', async () => {
    const seen = new Map<string, number>();
    for (let i = 0; i < 20; i++) {
      const id = await tcpWho(ports.db);
      seen.set(id, (seen.get(id) ?? 0) + 1);
    }
    assert.deepEqual([...seen.keys()].sort(), ['t1', 't2']);
    assert.match(await tcpAsk(ports.db, 'ping\n', 500), /^t[12]\nping\n$/, 'bytes go both ways');
  });

  test('UDP is reached through its port (Service port by name) and spread over two endpoints', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) seen.add((await udpAsk(ports.dns, `q${i}`)).split(':')[0] ?? '');
    assert.deepEqual([...seen].sort(), ['u1', 'u2']);
  });

  test('PROXY: the client sends a PROXY line (decoded, its address trusted) and the backend gets one from nginx', async () => {
    const answer = await tcpAsk(ports.proxy, 'PROXY TCP4 203.0.113.7 127.0.0.1 40000 443\r\n');
    assert.match(answer, /^pp PROXY TCP4 203\.0\.113\.7 127\.0\.0\.1 40000 \d+\n$/);
  });

  test('invalid and hostile entries are skipped with a Warning naming the ConfigMap and key; nothing of them reaches nginx.conf', async () => {
    const conf = (await get(p.healthz, 'localhost', '/debug/config')).body;
    // Whole tokens only: a random port or a hash in nginx.conf may hold the digits 9999 or 70000 by chance.
    const leaked = conf.match(/listen 1;|\bmissing\b|\b9999\b|\b70000\b/);
    assert.equal(leaked, null, `nginx.conf holds ${JSON.stringify(leaked?.[0])} from a skipped entry`);
    for (const key of ['abc', '70000', String(ports.added + 1), String(ports.added + 2), String(ports.added + 3), String(ports.added + 4)]) {
      assert.ok(
        p.output.some((l) => l.includes('ConfigMap ingress/tcp') && l.includes(`data.${key}`) && l.includes('"level":40')),
        `no Warning for key ${key}`,
      );
    }
    await assert.rejects(tcpAsk(ports.added + 1), /ECONNREFUSED/);
  });

  test('HTTP routing is unaffected, and /debug/backends shows the stream ports', async () => {
    assert.equal(await who(p.http, 'web.test', '/'), 'w1');
    const debug = JSON.parse((await get(p.healthz, 'localhost', '/debug/backends')).body) as { name: string; endpoints: unknown[] }[];
    assert.deepEqual(
      debug
        .filter((b) => /^(tcp|udp)-/.test(b.name))
        .map((b) => [b.name, b.endpoints.length])
        .sort(),
      [
        [`tcp-${ports.db}`, 2],
        [`tcp-${ports.proxy}`, 1],
        [`udp-${ports.dns}`, 2],
      ].sort(),
    );
  });

  test('a port added, changed and removed in the ConfigMap while running; a reserved port is refused', async () => {
    const cm = (extra: Record<string, string>): Promise<void> =>
      m.write('cm.json', [configMap('tcp', tcpMap(extra), 'ingress'), configMap('udp', { [String(ports.dns)]: 'default/dns:udp' }, 'ingress')]);
    await cm({ [String(ports.added)]: 'default/db2:5433', [String(p.https)]: 'default/db2:5433' });
    await until('added port served', async () => (await tcpWho(ports.added)) === 't3', 10_000, 100);
    assert.ok(p.output.some((l) => l.includes('ConfigMap ingress/tcp') && l.includes(`data.${p.https}`) && l.includes("Portico's own ports")));
    await cm({ [String(ports.added)]: 'default/db:5432' });
    await until('changed port served by db', async () => ['t1', 't2'].includes(await tcpWho(ports.added)), 10_000, 100);
    await cm({});
    await until(
      'removed port closed',
      async () => {
        try {
          await tcpWho(ports.added);
          return false;
        } catch {
          return true;
        }
      },
      10_000,
      100,
    );
    assert.ok(['t1', 't2'].includes(await tcpWho(ports.db)), 'the other ports keep working');
  });

  test('an endpoint replaced is served within seconds (a reload, counted as a stream reload)', async () => {
    const before = streamReloads(p);
    await m.write('svc.json', [
      ...streamService('db', 5432, 'TCP', [tcp[2] as StreamBackend]),
      ...streamService('db2', 5433, 'TCP', [tcp[2] as StreamBackend]),
      ...streamService('pp', 9000, 'TCP', [pp]),
      ...streamService('dns', 53, 'UDP', udp),
      ...backendObjects('web', web.port),
      ingressClass('portico'),
      ingress('web', { className: 'portico', host: 'web.test', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }),
    ]);
    // Served within the bound of until(): the old workers may still take a connection or two while they quit, so
    // the change counts once three in a row reach the new endpoint; then every connection does.
    let row = 0;
    await until(
      'only t3',
      async () => {
        row = (await tcpWho(ports.db)) === 't3' ? row + 1 : 0;
        return row >= 3;
      },
      10_000,
      50,
    );
    for (let i = 0; i < 10; i++) assert.equal(await tcpWho(ports.db), 't3');
    assert.ok(streamReloads(p) > before, 'the reload is counted with its cause');
  });
});
