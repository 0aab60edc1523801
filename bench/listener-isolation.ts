// What deciding the listener of a request costs (docs/adr/0031): hand-written nginx proxying to the same backend
// (the reference), Portico with one Gateway listener (no check rendered, a plain route), and Portico with the
// isolation Gateway (four nested listener hostnames on 80) beside an HTTPS Gateway with two listener hostnames, so
// every server carries the misdirected-request lines: its most specific listener's route (plain location, plus the
// 421 check's map lookup and compare) and its catch-all listener's route on bar.com (a Lua candidate with
// exceptHosts). One nginx worker each; rounds interleave the cases so that load drift hits them alike; medians and
// ratios to hand-written nginx are printed. Bounded: --rounds (1-9, default 3) x 4 cases x --seconds (1-10, default 3).
// Run: npx tsc -p tsconfig.json && node dist/bench/listener-isolation.js [--rounds 3 --seconds 3]
import { rm } from 'node:fs/promises';
import { backendConf, fmt, intArg, median, startNginx, wrk, type HandNginx, type WrkResult } from './lib.js';
import { handConf, SAME_HEADERS } from './hand-conf.js';
import { gateway, gatewayClass, httpRoute } from '../test/support/gateway.js';
import { manifestDir, writeManifests } from '../test/support/manifests.js';
import { service, slice } from '../test/support/objects.js';
import { freePort, startPortico, type Running } from '../test/support/portico.js';

const ref = { name: 'one', port: 80 };
const prefix = (value: string): Record<string, unknown> => ({ matches: [{ path: { type: 'PathPrefix', value } }], backendRefs: [ref] });
const NESTED = [undefined, '*.example.com', '*.foo.example.com', 'abc.foo.example.com'];

/** The isolation Gateway's objects: four listeners on 80 and a route per listener; plus an HTTPS Gateway whose two listener hostnames turn the 421 check on. */
function isolated(port: number): unknown[] {
  return [
    gatewayClass('portico'),
    gateway(
      'iso',
      NESTED.map((h, i) => ({ name: `l${i}`, ...(h ? { hostname: h } : {}) })),
    ),
    ...NESTED.map((_, i) => httpRoute(`r${i}`, { parentRefs: [{ name: 'iso', sectionName: `l${i}` }], rules: [prefix(`/r${i}`)] })),
    // served with the default certificate (no such Secret): only the listener hostnames matter here
    gateway('tls', [
      { name: 'a', protocol: 'HTTPS', hostname: 'a.tls.bench', certificateRefs: [{ name: 'none' }] },
      { name: 'b', protocol: 'HTTPS', hostname: 'b.tls.bench', certificateRefs: [{ name: 'none' }] },
    ]),
    service('one'),
    slice('one', port, ['127.0.0.1']),
  ];
}

function plain(port: number): unknown[] {
  return [
    gatewayClass('portico'),
    gateway('web', [{ name: 'http' }]),
    httpRoute('plain', { parentRefs: [{ name: 'web' }], hostnames: ['abc.foo.example.com'], rules: [prefix('/r3')] }),
    service('one'),
    slice('one', port, ['127.0.0.1']),
  ];
}

async function porticoOn(objects: unknown[]): Promise<{ running: Running; dir: string }> {
  const dir = await manifestDir();
  await writeManifests(dir, 'all.yaml', objects);
  return { running: await startPortico(['--manifests', dir, '--worker-processes', '1', '--log-level', 'info']), dir };
}

async function main(): Promise<void> {
  const rounds = intArg(process.argv, '--rounds', 3, 1, 9);
  const seconds = intArg(process.argv, '--seconds', 3, 1, 10);
  const port = await freePort();
  const backend = await startNginx('iso-backend', backendConf([port]), '1', port);
  const stops: (() => Promise<unknown>)[] = [() => backend.stop()];
  try {
    const handPort = await freePort();
    const hand: HandNginx = await startNginx(
      'iso-hand',
      handConf({ port: handPort, backends: [port], workers: 1, host: 'abc.foo.example.com', headers: SAME_HEADERS, serverExtra: '' }),
      '0,1',
      handPort,
    );
    stops.push(() => hand.stop());
    const a = await porticoOn(plain(port));
    stops.push(
      () => a.running.stop(),
      () => rm(a.dir, { recursive: true, force: true }),
    );
    const b = await porticoOn(isolated(port));
    stops.push(
      () => b.running.stop(),
      () => rm(b.dir, { recursive: true, force: true }),
    );
    const cases = [
      { name: 'hand-written nginx', url: `http://127.0.0.1:${handPort}/r3`, host: 'abc.foo.example.com' },
      { name: 'Portico, one listener, plain route', url: `http://127.0.0.1:${a.running.http}/r3`, host: 'abc.foo.example.com' },
      { name: 'Portico, most specific listener (plain + 421 check)', url: `http://127.0.0.1:${b.running.http}/r3`, host: 'abc.foo.example.com' },
      { name: 'Portico, catch-all listener (Lua, exceptHosts)', url: `http://127.0.0.1:${b.running.http}/r0`, host: 'bar.com' },
    ];
    const results = new Map<string, WrkResult[]>(cases.map((c) => [c.name, []]));
    for (let r = 0; r < rounds; r++) for (const c of cases) results.get(c.name)?.push(await wrk(c.url, c.host, { seconds, connections: 8, cpus: '0' }));
    const ref0 = median((results.get(cases[0]?.name ?? '') ?? []).map((x) => x.rps));
    console.log(`| case | req/s (median of ${rounds}) | ratio to hand-written | p99 ms | non-2xx |`);
    console.log('|---|---|---|---|---|');
    for (const c of cases) {
      const rs = results.get(c.name) ?? [];
      const rps = median(rs.map((x) => x.rps));
      console.log(`| ${c.name} | ${fmt(rps)} | ${fmt(rps / ref0, 2)} | ${fmt(median(rs.map((x) => x.p99ms)), 2)} | ${rs.reduce((s, x) => s + x.non2xx + x.socketErrors, 0)} |`);
    }
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

await main();
