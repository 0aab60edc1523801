// End to end: TCPRoute and UDPRoute peers from njs tables (docs/adr/0041), through real nginx with Debian's stream
// njs module to real backends on 127.0.0.1: an EndpointSlice change and a weight change are served without a reload
// (reload counter and worker PIDs unchanged), weights are respected, a backend without endpoints has its connections
// closed, a route of another namespace never gets its endpoints into the listener, a new listener port still reloads.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { slice } from '../support/objects.js';
import { manifestFolder, type ManifestDir } from '../support/manifests.js';
import { freePort, startPortico, until, workerPids, type Running } from '../support/portico.js';
import { tcpBackend, tcpWho, udpAsk, udpBackend, type StreamBackend } from '../support/stream-backends.js';
import { gatewayClass } from '../support/gateway.js';

const G = 'gateway.networking.k8s.io/v1';

/** A Service in `namespace` and one EndpointSlice per backend (none: a Service without endpoints). */
function service(namespace: string, name: string, port: number, protocol: 'TCP' | 'UDP', backends: readonly StreamBackend[]): unknown[] {
  return [
    { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { ports: [{ name: 'p', port, protocol }] } },
    ...backends.map((b, i) => ({ ...slice(name, b.port, ['127.0.0.1'], { namespace, name: `${name}-${i}`, portName: 'p' }), ports: [{ name: 'p', port: b.port, protocol }] })),
  ];
}

/** A route of `ns/name` (`ns/name@created` for a creationTimestamp) on listener `sectionName` of Gateway a/l4. */
function route(kind: 'TCPRoute' | 'UDPRoute', id: string, sectionName: string, backendRefs: readonly Record<string, unknown>[]): unknown {
  const [ref = '', created] = id.split('@');
  const [namespace, name] = ref.split('/');
  return {
    apiVersion: G,
    kind,
    metadata: { name, namespace, ...(created ? { creationTimestamp: created } : {}) },
    spec: { parentRefs: [{ name: 'l4', namespace: 'a', sectionName }], rules: [{ backendRefs }] },
  };
}

/** The highest reload count any sync or peers-table line reported. */
const reloads = (p: Running): number => Math.max(0, ...p.output.map((l) => Number(/"counters":\{"reloads":(\d+)/.exec(l)?.[1] ?? 0)));
const tablesRewritten = (p: Running): number => p.output.filter((l) => l.includes('rewrote TCP/UDP peers tables')).length;

describe('TCPRoute and UDPRoute peers from njs tables, no reload', () => {
  const be = new Map<string, StreamBackend>();
  let m: ManifestDir;
  let p: Running;
  const local = { tcp: 0, udp: 0, extra: 0 };
  const b = (id: string): StreamBackend => be.get(id) as StreamBackend;

  interface State {
    readonly dbA: readonly string[];
    readonly dbB: readonly string[];
    readonly dns: readonly string[];
    readonly weights?: readonly [number, number];
    readonly extraListener?: boolean;
  }
  const objects = (s: State): unknown[] => [
    gatewayClass('portico'),
    {
      apiVersion: G,
      kind: 'Gateway',
      metadata: { name: 'l4', namespace: 'a' },
      spec: {
        gatewayClassName: 'portico',
        // allowedRoutes default: routes of namespace a only
        listeners: [{ name: 'db', protocol: 'TCP', port: 5432 }, { name: 'dns', protocol: 'UDP', port: 53 }, ...(s.extraListener === true ? [{ name: 'extra', protocol: 'TCP', port: 6000 }] : [])],
      },
    },
    ...service('a', 'db-a', 5432, 'TCP', s.dbA.map(b)),
    ...service('a', 'db-b', 5432, 'TCP', s.dbB.map(b)),
    ...service('a', 'dns', 53, 'UDP', s.dns.map(b)),
    route('TCPRoute', 'a/db', 'db', [
      { name: 'db-a', port: 5432, weight: s.weights?.[0] ?? 3 },
      { name: 'db-b', port: 5432, weight: s.weights?.[1] ?? 1 },
    ]),
    route('UDPRoute', 'a/dns', 'dns', [{ name: 'dns', port: 53 }]),
    ...(s.extraListener === true ? [route('TCPRoute', 'a/extra', 'extra', [{ name: 'db-b', port: 5432 }])] : []),
    // Namespace b, older than a's routes, names a's listeners and its own backend: the listener admits namespace a only.
    ...service('b', 'thief', 5432, 'TCP', [b('x1')]),
    ...service('b', 'thief-dns', 53, 'UDP', [b('ux')]),
    route('TCPRoute', 'b/steal@2000-01-01T00:00:00Z', 'db', [{ name: 'thief', port: 5432, weight: 1000 }]),
    route('UDPRoute', 'b/steal-dns@2000-01-01T00:00:00Z', 'dns', [{ name: 'thief-dns', port: 53 }]),
  ];

  /** `n` TCP connections: who answered each ('' for a closed one). */
  async function tally(n: number): Promise<Map<string, number>> {
    const seen = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const id = await tcpWho(local.tcp);
      seen.set(id, (seen.get(id) ?? 0) + 1);
    }
    return seen;
  }

  /** Waits until `n` TCP connections in a row are answered by one of `ids`. */
  async function served(ids: readonly string[], what: string, n = 8): Promise<void> {
    let row = 0;
    await until(
      what,
      async () => {
        row = ids.includes(await tcpWho(local.tcp)) ? row + 1 : 0;
        return row >= n;
      },
      15_000,
      30,
    );
  }

  before(async () => {
    for (const id of ['a1', 'a2', 'b1', 'x1']) be.set(id, await tcpBackend(id));
    for (const id of ['u1', 'u2', 'ux']) be.set(id, await udpBackend(id));
    local.tcp = await freePort();
    local.udp = await freePort();
    local.extra = await freePort();
    m = await manifestFolder();
    await m.write('l4.json', objects({ dbA: ['a1'], dbB: ['b1'], dns: ['u1'] }));
    p = await startPortico(['--manifests', m.dir, '--gateway-port-map', `5432=${local.tcp},53=${local.udp},6000=${local.extra}`]);
  });
  after(async () => {
    await p?.stop();
    await m?.remove();
    await Promise.all([...be.values()].map((x) => x.close()));
  });

  test('nginx.conf names no endpoint: the servers read $portico_l4_peer', async () => {
    const conf = await readFile(join(p.workDir, 'nginx.conf'), 'utf8');
    assert.match(conf, /load_module "\/usr\/lib\/nginx\/modules\/ngx_stream_js_module\.so";/);
    assert.equal((conf.match(/proxy_pass \$portico_l4_peer;/g) ?? []).length, 2);
    for (const id of ['a1', 'b1', 'u1', 'x1']) assert.ok(!conf.includes(`:${String(b(id).port)};`), `${id}'s port is in nginx.conf`);
  });

  test('round trips, and weights 3:1 over 160 connections (a loose check: other connections share the serial counter)', async () => {
    await until('the TCP listener answers', async () => ['a1', 'b1'].includes(await tcpWho(local.tcp)), 10_000, 100);
    await until('the UDP listener answers', async () => (await udpAsk(local.udp, 'q')) === 'u1:q', 10_000, 100);
    const seen = await tally(160);
    assert.deepEqual([...seen.keys()].sort(), ['a1', 'b1'], JSON.stringify([...seen]));
    // expected 120 of 160, exact when nothing else takes connection serials; 95..145 even if it were random (sd 5.5)
    const a = seen.get('a1') ?? 0;
    assert.ok(a >= 95 && a <= 145, `db-a answered ${String(a)} of 160`);
  });

  test("another namespace's route never reaches a's listeners, though older and heavier", async () => {
    const seen = await tally(30);
    assert.equal(seen.get('x1') ?? 0, 0, JSON.stringify([...seen]));
    for (let i = 0; i < 5; i++) assert.equal(await udpAsk(local.udp, 'q'), 'u1:q');
    const table = await readFile(join(p.workDir, 'l4', `tcp-${String(local.tcp)}.json`), 'utf8');
    assert.ok(!table.includes('thief') && !table.includes(String(b('x1').port)), table);
    const warned = p.output.some((l) => /TCPRoute b\/steal spec\.parentRefs\[0\]: NotAllowedByListeners/.test(l));
    assert.ok(warned, 'the refused route is reported');
  });

  test('EndpointSlices changed (TCP and UDP): the new endpoints answer, no reload, the same workers', async () => {
    const [r0, pids0, t0] = [reloads(p), await workerPids(p), tablesRewritten(p)];
    await m.write('l4.json', objects({ dbA: ['a2'], dbB: ['b1'], dns: ['u2'] }));
    await served(['a2', 'b1'], 'a2 answering in place of a1');
    await until('u2 answering', async () => (await udpAsk(local.udp, 'q')) === 'u2:q', 15_000, 50);
    const seen = await tally(40);
    assert.equal(seen.get('a1') ?? 0, 0, JSON.stringify([...seen]));
    await until('the tables rewritten line', () => tablesRewritten(p) > t0, 10_000, 50);
    assert.equal(reloads(p), r0, 'no reload');
    assert.deepEqual(await workerPids(p), pids0, 'the same workers');
  });

  test('a weight changed (db-a 0): only db-b answers, no reload', async () => {
    const [r0, pids0] = [reloads(p), await workerPids(p)];
    await m.write('l4.json', objects({ dbA: ['a2'], dbB: ['b1'], dns: ['u2'], weights: [0, 1] }));
    await served(['b1'], 'b1 alone', 12);
    const seen = await tally(30);
    assert.deepEqual([...seen.keys()], ['b1'], JSON.stringify([...seen]));
    assert.equal(reloads(p), r0, 'no reload');
    assert.deepEqual(await workerPids(p), pids0, 'the same workers');
  });

  test('no endpoints: TCP connections are closed, UDP gets no answer; endpoints back: served again', async () => {
    const r0 = reloads(p);
    await m.write('l4.json', objects({ dbA: [], dbB: [], dns: [] }));
    await served([''], 'the TCP connections closed', 5);
    await until('no UDP answer', async () => (await udpAsk(local.udp, 'q', 500)) === '', 15_000, 50);
    await m.write('l4.json', objects({ dbA: ['a1'], dbB: [], dns: ['u1'] }));
    await served(['a1'], 'a1 again');
    await until('u1 again', async () => (await udpAsk(local.udp, 'q')) === 'u1:q', 15_000, 50);
    assert.equal(reloads(p), r0, 'no reload');
  });

  test('a listener port opened still reloads, and is served from its own table', async () => {
    const r0 = reloads(p);
    await m.write('l4.json', objects({ dbA: ['a1'], dbB: ['b1'], dns: ['u1'], extraListener: true }));
    await until('the new listener answers', async () => (await tcpWho(local.extra).catch(() => '')) === 'b1', 15_000, 100);
    await until('the reload counted', () => reloads(p) > r0, 10_000, 50);
    const table = JSON.parse(await readFile(join(p.workDir, 'l4', `tcp-${String(local.extra)}.json`), 'utf8')) as { listener: string; backends: unknown[] };
    assert.equal(table.listener, 'a/l4/extra');
    assert.equal(table.backends.length, 1);
  });

  test('a table naming anything but IP:port, or not JSON, makes the script close the connection (data, never code)', async () => {
    const file = join(p.workDir, 'l4', `tcp-${String(local.extra)}.json`);
    const good = await readFile(file, 'utf8');
    const bad = [
      { backends: [{ service: 'x', weight: 1, endpoints: ['localhost:' + String(b('b1').port)] }] },
      { backends: [{ service: 'x', weight: 1, endpoints: [`127.0.0.1:${String(b('b1').port)}; proxy_pass 127.0.0.1:1`] }] },
      { backends: [{ service: 'x', weight: '1', endpoints: [`127.0.0.1:${String(b('b1').port)}`] }] },
    ];
    for (const table of [...bad.map((x) => JSON.stringify(x)), "require('fs').writeFileSync('/tmp/x', 'y')", '']) {
      await writeFile(file, table);
      assert.equal(await tcpWho(local.extra), '', table);
    }
    await writeFile(file, good);
    assert.equal(await tcpWho(local.extra), 'b1');
  });
});
