// bench/proxy-attribute: where a proxied request's user-space instructions go, feature by feature.
//
//   npm run bench:proxy-attribute -- [--rounds 2] [--seconds 3] [--connections 50]
//
// Every side runs under valgrind's callgrind as one nginx process (see bench/lib.ts callgrindWrapper), pinned to
// CPU 0, with wrk and the backend on CPU 1, and reports instructions per request (deterministic to about ±0.5% on a
// loaded machine; no kernel time). Sides: Portico as installed (`portico`), Portico with --enable-metrics=false, and
// hand-written variants of bench/proxy-features.ts's `twin`, each with one feature removed, changed or added. The
// difference to `twin` is that feature's cost per request.
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingress, ingressClass, service, slice } from '../test/support/objects.js';
import { manifestDir, writeManifests } from '../test/support/manifests.js';
import { freePort, REPO, startPortico } from '../test/support/portico.js';
import { backendConf, callgrindDump, callgrindWrapper, callgrindZero, fmt, intArg, median, startNginx, wrk } from './lib.js';
import { featureConf, MINIMAL, TWIN, type Features } from './proxy-features.js';

const argv = process.argv.slice(2);
const ROUNDS = intArg(argv, 'rounds', 2, 1, 10);
const SECONDS = intArg(argv, 'seconds', 3, 1, 30);
const CONNECTIONS = intArg(argv, 'connections', 50, 1, 1000);
const PROXY_CPUS = '0';
const CLIENT_CPUS = '1';
const HOST = 'bench.test';
/** --only a,b: measure only these sides (names as in the table; twin and minimal are always measured). */
const ONLY = ((): Set<string> | undefined => {
  const i = argv.findIndex((a) => a === '--only' || a.startsWith('--only='));
  if (i < 0) return undefined;
  const v = argv[i]!.startsWith('--only=') ? argv[i]!.slice(7) : (argv[i + 1] ?? '');
  return new Set(['twin', 'minimal', ...v.split(',').filter(Boolean)]);
})();
const wanted = (name: string): boolean => ONLY === undefined || ONLY.has(name);

/** name, what it shows, features. The C-only features are measured on `static` (the twin with a static upstream): its
 * instruction counts repeat to ±0.5% from process to process, where a Lua-balanced one moves by up to ±1,500. */
const S: Features = { ...TWIN, balancer: 'static' };
const VARIANTS: readonly (readonly [string, string, Features])[] = [
  ['twin', 'hand-written: ingress-nginx default headers, maps, request id, buffered log, Lua balancer', TWIN],
  ['twin#2', 'the same again in another process (process-to-process spread of a Lua-balanced nginx)', TWIN],
  ['minimal', "bench/proxy's minimal: static upstream, Host + Connection, same log", MINIMAL],
  ['static', 'twin with a static upstream instead of balancer_by_lua (the base of the rows below)', S],
  ['static#2', 'the same again in another process', S],
  ['S-headers', 'static with Host + Connection only (the 10 other default headers)', { ...S, headers: 'minimal' }],
  ['S-maps', 'static with $host, "" and $request_id instead of the three maps', { ...S, maps: false }],
  ['S-reqid', 'static without X-Request-ID and $req_id in the log', { ...S, requestId: false }],
  ['S+cert-maps', 'static + ssl-client-* through maps on every server (Portico before this work)', { ...S, clientCert: 'maps' }],
  ['S+cert-empty', 'static + ssl-client-* set to "" (Portico now, servers without client auth)', { ...S, clientCert: 'empty' }],
  ['S+cert-direct', 'static + ssl-client-* as $ssl_client_* (a client-auth server, plain HTTP here)', { ...S, clientCert: 'direct' }],
  ['S-log', 'static with access_log off', { ...S, log: 'off' }],
  ['S-unbuffered', 'static, access log without buffer (ingress-nginx default: one write per request)', { ...S, log: 'unbuffered' }],
  ['S+realip', 'static + real_ip_header X-Forwarded-For (enable-real-ip)', { ...S, realIp: true }],
  ['S+label', 'static + set $portico_metrics in the location', { ...S, metricsLabel: true }],
  ['S+lua-reqid', 'static, the request id from lua/portico/request_id.lua (server-level set_by_lua) instead of $request_id', { ...S, luaRequestId: true }],
];

interface Side {
  readonly name: string;
  readonly what: string;
  readonly port: number;
  readonly pid: number;
}

async function main(): Promise<void> {
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async (): Promise<void> => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  process.once('SIGINT', () => {
    void stopAll().then(() => process.exit(130));
  });
  try {
    const cgDir = await mkdtemp(join(tmpdir(), 'portico-bench-cg-'));
    await chmod(cgDir, 0o777);
    stops.push(() => rm(cgDir, { recursive: true, force: true }));
    const binary = await callgrindWrapper(cgDir);
    const backendPorts = [await freePort(), await freePort()];
    const backend = await startNginx('backend', backendConf(backendPorts), CLIENT_CPUS, backendPorts[0]!);
    stops.push(() => backend.stop());

    const dir = await manifestDir();
    stops.push(() => rm(dir, { recursive: true, force: true }));
    await writeManifests(dir, 'bench.yaml', [
      ingressClass('portico'),
      service('bench'),
      ...backendPorts.map((p, i) => slice('bench', p, ['127.0.0.1'], { name: `bench-${i}` })),
      ingress('bench', { className: 'portico', host: HOST, paths: [{ path: '/', type: 'Prefix', service: 'bench' }] }),
    ]);
    const sides: Side[] = [];
    for (const [name, what, extra] of [
      ['portico', 'Portico as installed (every default: metrics on, dynamic routes)', []],
      ['rendered', 'Portico, --enable-dynamic-routes=false (the host in a rendered server block)', ['--enable-dynamic-routes=false']],
      ['nometrics', 'Portico, --enable-metrics=false', ['--enable-metrics=false']],
      ['rendered-nometrics', 'Portico, both =false', ['--enable-dynamic-routes=false', '--enable-metrics=false']],
    ] as const) {
      if (!wanted(name)) continue;
      const p = await startPortico(['--manifests', dir, '--worker-processes', '1', '--log-level', 'info', '--nginx-binary', binary, ...extra]);
      stops.push(() => p.stop());
      const pid = Number((await readFile(join(p.workDir, 'nginx.pid'), 'utf8')).trim());
      sides.push({ name, what, port: p.http, pid });
    }
    for (const [name, what, features] of VARIANTS.filter(([n]) => wanted(n))) {
      const port = await freePort();
      const n = await startNginx(name.replace(/[^a-z]/g, ''), featureConf({ port, backends: backendPorts, workers: 1, host: HOST, features, luaDir: join(REPO, 'lua') }), PROXY_CPUS, port, binary);
      stops.push(() => n.stop());
      sides.push({ name, what, port, pid: n.proc.pid ?? 0 });
    }

    console.log(`bench/proxy-attribute: instructions per request (callgrind), ${ROUNDS} rounds x ${SECONDS}s per side, wrk -t1 -c${CONNECTIONS}`);
    for (const s of sides) await wrk(`http://127.0.0.1:${s.port}/`, HOST, { seconds: 2, connections: CONNECTIONS, cpus: CLIENT_CPUS }); // warm-up, JIT
    const per = new Map<string, number[]>(sides.map((s) => [s.name, []]));
    for (let r = 0; r < ROUNDS; r += 1) {
      for (const s of sides) {
        await callgrindZero(s.pid);
        const w = await wrk(`http://127.0.0.1:${s.port}/`, HOST, { seconds: SECONDS, connections: CONNECTIONS, cpus: CLIENT_CPUS });
        // under valgrind on a loaded machine wrk may time out a few of its 50 connections: said, not hidden
        if (w.non2xx + w.socketErrors > 0) console.log(`  ${s.name} round ${r + 1}: ${w.non2xx} non-2xx, ${w.socketErrors} socket errors of ${w.requests} requests`);
        per.get(s.name)!.push((await callgrindDump(cgDir, s.pid)) / Math.max(1, w.requests));
      }
    }
    const twin = median(per.get('twin')!);
    const minimal = median(per.get('minimal')!);
    console.log(`\n${'side'.padEnd(13)}${'instr/req'.padStart(10)}${'(min-max)'.padStart(16)}${'vs twin'.padStart(9)}${'/minimal'.padStart(10)}  what`);
    for (const s of sides) {
      const xs = per.get(s.name)!;
      const m = median(xs);
      const delta = m - twin;
      console.log(
        `${s.name.padEnd(13)}${fmt(m).padStart(10)}${`(${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))})`.padStart(16)}${`${delta >= 0 ? '+' : ''}${fmt(delta)}`.padStart(9)}${fmt(m / minimal, 3).padStart(10)}  ${s.what}`,
      );
    }
  } finally {
    await stopAll();
  }
}

await main();
