// bench/proxy: requests/s and latency through Portico's nginx vs hand-written nginx with a static upstream.
//
//   npm run bench:proxy -- [--rounds 6] [--seconds 5] [--connections 50] [--workers 1] [--callgrind] [--only a,b]
//
// --callgrind: instead of timing, run every nginx under valgrind's callgrind and report the instructions the proxy's
// worker executes per request (deterministic to a fraction of a percent on a busy machine; no kernel time).
//
// Sides, all the same /usr/sbin/nginx, the same worker count, the proxy's workers pinned to CPU 0 and wrk plus the
// backend pinned to CPU 1, measured in interleaved rounds (the order rotates each round):
//   portico   the real `portico` command in local mode on a manifest folder, as installed: no flag but the manifest
//             folder and the worker count, so every default applies (Lua balancer, per-request metrics through the
//             http-level log_by_lua of lua/portico/metrics.lua, and the routing --enable-dynamic-routes defaults to)
//   rendered  the same with --enable-dynamic-routes=false: the host served by its rendered server block and location
//   nometrics the same command with --enable-metrics=false: the metrics' cost is portico / nometrics
//   dynamic   the same command with --enable-dynamic-routes: the host is matched by the Lua route table in the
//             catch-all server (docs/adr/0014), not by a rendered location; the router's cost is dynamic / portico
//   profiled  (with --profiled) the same, the Ingress annotated proxy-read-timeout: "60" (nginx's default, so the
//             same behaviour): served through a profile, the router's ngx.exec to a shared named location
//   same      hand-written nginx.conf: static `upstream` + keepalive, the same proxy headers, maps and access log
//   minimal   hand-written nginx.conf: static `upstream` + keepalive, only the headers keepalive needs, same access log
//   bare      minimal without the access log: the "nginx, static upstream with keepalive" (its 1.00)
//   twin      hand-written nginx.conf with the headers ingress-nginx sends by default, the same access log and the
//             smallest balancer_by_lua (bench/proxy-features.ts): the issue's "hand-written nginx with the same
//             headers, log and balancer". Targets: portico / minimal >= 0.80, portico / twin >= 1.0
// The backend is a second hand-written nginx answering `return 200` on two ports (two endpoints, round robin).
// All sides but `bare` log every request with Portico's `portico` log format to a file, buffer=64k flush=1s.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingress, ingressClass, service, slice } from '../test/support/objects.js';
import { manifestDir, writeManifests } from '../test/support/manifests.js';
import { freePort, startPortico, type Running } from '../test/support/portico.js';
import {
  backendAccepts,
  backendConf,
  callgrindDump,
  callgrindWrapper,
  callgrindZero,
  childPids,
  syscallCounts,
  cpuNs,
  cpuTicks,
  fmt,
  intArg,
  median,
  pin,
  sleep,
  startNginx,
  wrk,
  type HandNginx,
  type WrkResult,
} from './lib.js';
import { handConf, MINIMAL_HEADERS, SAME_HEADERS } from './hand-conf.js';
import { featureConf, TWIN } from './proxy-features.js';

const argv = process.argv.slice(2);
const ROUNDS = intArg(argv, 'rounds', 6, 1, 50);
const SECONDS = intArg(argv, 'seconds', 5, 1, 60);
const CONNECTIONS = intArg(argv, 'connections', 50, 1, 1000);
const WORKERS = intArg(argv, 'workers', 1, 1, 8);
const CALLGRIND = argv.includes('--callgrind');
/** --syscalls: count each side's syscalls per request under strace instead of timing. */
const SYSCALLS = argv.includes('--syscalls');
/** --keep-profiles: leave the callgrind dumps for callgrind_annotate and print where they are. */
const KEEP_PROFILES = argv.includes('--keep-profiles');
/** --only a,b: start and measure only these sides (names as below; minimal, bare and twin always, for the target ratios). */
const ONLY = ((): Set<string> | undefined => {
  const i = argv.findIndex((a) => a === '--only' || a.startsWith('--only='));
  if (i < 0) return undefined;
  const v = argv[i]!.startsWith('--only=') ? argv[i]!.slice(7) : (argv[i + 1] ?? '');
  return new Set(['minimal', 'bare', 'twin', ...v.split(',').filter(Boolean)]);
})();
const wanted = (name: string): boolean => ONLY === undefined || ONLY.has(name);
const PROXY_CPUS = '0';
const CLIENT_CPUS = '1';
const HOST = 'bench.test';
/** Lines Portico renders at the top of a server{} without client-certificate auth: none. */
const CLIENT_AUTH = '';

interface Side {
  readonly name: string;
  readonly port: number;
  workers(): Promise<number[]>;
  readonly rounds: Measured[];
  /** The process that serves requests under --callgrind (master_process off). */
  readonly master: number;
}

type Measured = WrkResult & { cpuUsPerReq: number; userShare: number; backendConns: number };
let BACKEND_STATUS = 0;

/** The 1-, 5- and 15-minute load averages: requests/s mean something only near 1 (bench/README.md). */
async function loadAvg(): Promise<string> {
  return (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
}

async function measure(side: Side, seconds: number): Promise<Measured> {
  const workers = await side.workers();
  const before = await Promise.all(workers.map(cpuNs));
  const ticks0 = await Promise.all(workers.map(cpuTicks));
  const accepts0 = await backendAccepts(BACKEND_STATUS);
  const r = await wrk(`http://127.0.0.1:${side.port}/`, HOST, { seconds, connections: CONNECTIONS, cpus: CLIENT_CPUS });
  const after = await Promise.all(workers.map(cpuNs));
  const ticks1 = await Promise.all(workers.map(cpuTicks));
  const accepts1 = await backendAccepts(BACKEND_STATUS);
  const ns = after.reduce((a, b) => a + b, 0) - before.reduce((a, b) => a + b, 0);
  const user = ticks1.reduce((a, t) => a + t.user, 0) - ticks0.reduce((a, t) => a + t.user, 0);
  const system = ticks1.reduce((a, t) => a + t.system, 0) - ticks0.reduce((a, t) => a + t.system, 0);
  return { ...r, cpuUsPerReq: r.requests > 0 ? ns / r.requests / 1000 : Number.NaN, userShare: user / Math.max(1, user + system), backendConns: accepts1 - accepts0 - 1 };
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
    let cgDir = '';
    let binary: string | undefined;
    if (CALLGRIND) {
      cgDir = await mkdtemp(join(tmpdir(), 'portico-bench-cg-'));
      await chmod(cgDir, 0o777); // nginx workers (another user) write their own profile files
      if (KEEP_PROFILES) console.log(`callgrind dumps kept in ${cgDir}`);
      else stops.push(() => rm(cgDir, { recursive: true, force: true }));
      binary = await callgrindWrapper(cgDir);
    }
    const backendPorts = [await freePort(), await freePort()];
    BACKEND_STATUS = await freePort();
    const backend: HandNginx = await startNginx('backend', backendConf(backendPorts, BACKEND_STATUS), CLIENT_CPUS, backendPorts[0]!);
    stops.push(() => backend.stop());

    // Portico in local mode: one Ingress, one Service, one EndpointSlice with the two backend ports... as two
    // EndpointSlices (a slice's ports apply to all of its endpoints, and both endpoints are 127.0.0.1).
    const dir = await manifestDir();
    stops.push(() => rm(dir, { recursive: true, force: true }));
    await writeManifests(dir, 'bench.yaml', [
      ingressClass('portico'),
      service('bench'),
      ...backendPorts.map((p, i) => slice('bench', p, ['127.0.0.1'], { name: `bench-${i}` })),
      ingress('bench', { className: 'portico', host: HOST, paths: [{ path: '/', type: 'Prefix', service: 'bench' }] }),
    ]);
    // One Portico side: started on a manifests folder, stopped at the end, its nginx master and workers pinned.
    const pinnedPortico = async (manifests: string, extra: string[]): Promise<{ running: Running; pid: number }> => {
      const running = await startPortico(['--manifests', manifests, '--worker-processes', String(WORKERS), '--log-level', 'info', ...extra, ...(binary ? ['--nginx-binary', binary] : [])], {
        healthyTimeoutMs: binary ? 120_000 : 20_000, // nginx -t and start under valgrind are slow
      });
      stops.push(() => running.stop());
      const pid = Number((await readFile(join(running.workDir, 'nginx.pid'), 'utf8')).trim());
      for (const p of [pid, ...(await childPids(pid))]) await pin(p, PROXY_CPUS);
      return { running, pid };
    };
    /** A Portico side on the bench's manifests, or none when --only leaves it out. */
    const porticoSide = async (name: string, extra: string[]): Promise<Side[]> => {
      if (!wanted(name)) return [];
      const { running, pid } = await pinnedPortico(dir, extra);
      return [{ name, port: running.http, workers: () => childPids(pid), rounds: [], master: pid }];
    };
    const profiledSide = async (): Promise<Side> => {
      const pdir = await manifestDir();
      stops.push(() => rm(pdir, { recursive: true, force: true }));
      await writeManifests(pdir, 'bench.yaml', [
        ingressClass('portico'),
        service('bench'),
        ...backendPorts.map((p, i) => slice('bench', p, ['127.0.0.1'], { name: `bench-${i}` })),
        ingress('bench', { className: 'portico', host: HOST, paths: [{ path: '/', type: 'Prefix', service: 'bench' }], annotations: { 'nginx.ingress.kubernetes.io/proxy-read-timeout': '60' } }),
      ]);
      const { running: pr, pid: prPid } = await pinnedPortico(pdir, ['--enable-dynamic-routes']);
      return { name: 'profiled', port: pr.http, workers: () => childPids(prPid), rounds: [], master: prPid };
    };

    const twinSide = async (): Promise<Side> => {
      const port = await freePort();
      const n = await startNginx('twin', featureConf({ port, backends: backendPorts, workers: WORKERS, host: HOST, features: TWIN }), PROXY_CPUS, port, binary);
      stops.push(() => n.stop());
      return { name: 'twin', port, workers: () => n.workers(), rounds: [], master: n.proc.pid ?? 0 };
    };
    /** One hand-written side: its own port, stopped with the rest. */
    const hand = async (name: string, headers: string, serverExtra: string, lua = false, log = true): Promise<Side> => {
      const port = await freePort();
      const n = await startNginx(name, handConf({ port, backends: backendPorts, workers: WORKERS, host: HOST, headers, serverExtra, lua, log }), PROXY_CPUS, port, binary);
      stops.push(() => n.stop());
      return { name, port, workers: () => n.workers(), rounds: [], master: n.proc.pid ?? 0 };
    };
    const sides: Side[] = [
      ...(await porticoSide('portico', [])),
      ...(await porticoSide('rendered', ['--enable-dynamic-routes=false'])),
      ...(await porticoSide('nometrics', ['--enable-metrics=false'])),
      ...(await porticoSide('dynamic', ['--enable-dynamic-routes'])),
      ...(argv.includes('--profiled') && wanted('profiled') ? [await profiledSide()] : []),
      ...(wanted('same') ? [await hand('same', SAME_HEADERS, CLIENT_AUTH)] : []),
      await hand('minimal', MINIMAL_HEADERS, ''),
      await hand('bare', MINIMAL_HEADERS, '', false, false),
      ...(wanted('floor') ? [await hand('floor', SAME_HEADERS, CLIENT_AUTH, true)] : []),
      await twinSide(),
    ];
    for (const s of CALLGRIND ? [] : sides) {
      const w = await s.workers();
      if (w.length !== WORKERS) throw new Error(`${s.name}: expected ${WORKERS} nginx workers, found ${w.length}`);
    }

    if (CALLGRIND) {
      await instructions(sides, cgDir);
      return;
    }
    if (SYSCALLS) {
      await syscalls(sides);
      return;
    }
    console.log(`bench/proxy: ${ROUNDS} rounds x ${sides.length} sides x ${SECONDS}s, wrk -t1 -c${CONNECTIONS}, ${WORKERS} nginx worker(s) on CPU ${PROXY_CPUS}, wrk + backend on CPU ${CLIENT_CPUS}`);
    console.log(`load ${await loadAvg()}; nginx: ${NGINX_VERSION}; access_log on every side but bare: file, format "portico", buffer=64k flush=1s`);
    for (const s of sides) await measure(s, 1); // warm-up: keepalive pools, LuaJIT traces
    console.log('round  side      req/s   p50 ms  p99 ms  CPU us/req  errors  new backend conns');
    for (let r = 0; r < ROUNDS; r += 1) {
      const order = sides.map((_, i) => sides[(i + r) % sides.length]!);
      for (const s of order) {
        const m = await measure(s, SECONDS);
        s.rounds.push(m);
        console.log(
          `${String(r + 1).padStart(5)}  ${s.name.padEnd(8)} ${fmt(m.rps).padStart(7)}  ${fmt(m.p50ms, 2).padStart(6)}  ${fmt(m.p99ms, 2).padStart(6)}  ${fmt(m.cpuUsPerReq, 2).padStart(10)}  ${String(m.non2xx + m.socketErrors).padStart(6)}  ${m.backendConns}`,
        );
        await sleep(200);
      }
    }
    report(sides);
    console.log(`load at the end: ${await loadAvg()}`);
  } finally {
    await stopAll();
  }
}

/** --callgrind: instructions per request in each side's worker, `ROUNDS` times, interleaved. */
async function instructions(sides: readonly Side[], cgDir: string): Promise<void> {
  console.log(`bench/proxy --callgrind: instructions per request in the proxy's nginx worker, ${ROUNDS} rounds x ${SECONDS}s, wrk -t1 -c${CONNECTIONS}, load ${await loadAvg()}`);
  const per = new Map<string, number[]>(sides.map((s) => [s.name, []]));
  // warm-up by requests, not time (as bench/proxy-attribute): under valgrind on a loaded machine 3 s can be a few
  // hundred requests, before LuaJIT has compiled the hot path
  for (const s of sides) {
    let done = 0;
    for (let i = 0; i < 15 && done < 3000; i += 1) done += (await wrk(`http://127.0.0.1:${s.port}/`, HOST, { seconds: 2, connections: CONNECTIONS, cpus: CLIENT_CPUS })).requests;
  }
  for (let r = 0; r < ROUNDS; r += 1) {
    for (const s of sides) {
      const worker = s.master;
      await callgrindZero(worker);
      const w = await wrk(`http://127.0.0.1:${s.port}/`, HOST, { seconds: SECONDS, connections: CONNECTIONS, cpus: CLIENT_CPUS });
      const ir = await callgrindDump(cgDir, worker);
      const perReq = ir / Math.max(1, w.requests);
      per.get(s.name)!.push(perReq);
      console.log(`  round ${r + 1} ${s.name.padEnd(8)} ${fmt(perReq)} instructions/request (${w.requests} requests, ${w.non2xx + w.socketErrors} errors)`);
    }
  }
  const m = (name: string): number => median(per.get(name) ?? []);
  const refName = per.has('same') ? 'same' : 'minimal';
  const ref = m(refName);
  if (per.has('dynamic') && per.has('portico')) console.log(`dynamic / portico instructions (Lua router vs rendered locations): ${fmt(m('dynamic') / m('portico'), 3)}`);
  if (per.has('profiled') && per.has('portico')) console.log(`profiled / portico instructions (router + ngx.exec to a profile): ${fmt(m('profiled') / m('portico'), 3)}`);
  for (const s of sides) {
    const xs = per.get(s.name) ?? [];
    console.log(`${s.name.padEnd(8)} median ${fmt(median(xs))} (${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))}), ratio to ${refName} ${fmt(median(xs) / ref, 3)}`);
  }
  // the targets' ratios for every Portico side measured (which one is "as installed" depends on the flags' defaults)
  for (const name of ['portico', 'rendered', 'nometrics', 'dynamic', 'profiled'].filter((n) => per.has(n))) {
    console.log(
      `instructions, reference / ${name} (a throughput-like ratio): bare / ${name} ${fmt(m('bare') / m(name), 3)}, minimal / ${name} ${fmt(m('minimal') / m(name), 3)}, twin / ${name} ${fmt(m('twin') / m(name), 3)}`,
    );
  }
}

/** --syscalls: each side's syscalls per request (strace -c on its workers), to compare kernel work, not time. */
async function syscalls(sides: readonly Side[]): Promise<void> {
  console.log(`bench/proxy --syscalls: syscalls per request in the proxy's nginx workers under strace -c, ${SECONDS}s each, wrk -t1 -c${CONNECTIONS}`);
  const per = new Map<string, Map<string, number>>();
  for (const s of sides) {
    await wrk(`http://127.0.0.1:${s.port}/`, HOST, { seconds: 1, connections: CONNECTIONS, cpus: CLIENT_CPUS });
    const { requests, calls } = await syscallCounts(
      await s.workers(),
      async () => (await wrk(`http://127.0.0.1:${s.port}/`, HOST, { seconds: SECONDS, connections: CONNECTIONS, cpus: CLIENT_CPUS })).requests,
    );
    per.set(s.name, new Map([...calls].map(([k, v]) => [k, v / Math.max(1, requests)])));
    console.log(`  ${s.name}: ${requests} requests`);
  }
  const names = [...new Set([...per.values()].flatMap((m) => [...m.keys()]))].sort();
  console.log(`${'syscall'.padEnd(14)}${sides.map((s) => s.name.padStart(10)).join('')}`);
  for (const n of names) console.log(`${n.padEnd(14)}${sides.map((s) => fmt(per.get(s.name)?.get(n) ?? 0, 3).padStart(10)).join('')}`);
  console.log(
    `${'total'.padEnd(14)}${sides
      .map((s) =>
        fmt(
          [...(per.get(s.name)?.values() ?? [])].reduce((a, b) => a + b, 0),
          3,
        ).padStart(10),
      )
      .join('')}`,
  );
}

/** `a`/`b` of `f`: the ratio of the medians, then the per-round paired ratios' median and min-max. */
function ratio(a: Side, b: Side, f: (m: Measured) => number): string {
  const paired = a.rounds.map((m, i) => f(m) / f(b.rounds[i]!));
  return `${fmt(median(a.rounds.map(f)) / median(b.rounds.map(f)), 3)} (paired ${fmt(median(paired), 3)}, ${fmt(Math.min(...paired), 3)}-${fmt(Math.max(...paired), 3)})`;
}

function report(sides: readonly Side[]): void {
  const [p, ...refs] = sides as [Side, ...Side[]];
  console.log('\nmedians over rounds (min-max):');
  for (const s of sides) {
    const rps = s.rounds.map((m) => m.rps);
    const p99 = s.rounds.map((m) => m.p99ms);
    const cpu = s.rounds.map((m) => m.cpuUsPerReq);
    console.log(
      `  ${s.name.padEnd(8)} ${fmt(median(rps))} req/s (${fmt(Math.min(...rps))}-${fmt(Math.max(...rps))}, best ${fmt(Math.max(...rps))}), user share of worker CPU ${fmt(100 * median(s.rounds.map((m) => m.userShare)))}%, p50 ${fmt(median(s.rounds.map((m) => m.p50ms)), 2)} ms, p99 ${fmt(median(p99), 2)} ms (${fmt(Math.min(...p99), 2)}-${fmt(Math.max(...p99), 2)}), CPU ${fmt(median(cpu), 2)} us/req (${fmt(Math.min(...cpu), 2)}-${fmt(Math.max(...cpu), 2)})`,
    );
  }
  console.log('\nportico / hand-written (ratio of medians; per-round paired ratios: median, min-max):');
  for (const ref of refs) {
    console.log(
      `  vs ${ref.name.padEnd(8)} rps ${ratio(p, ref, (m) => m.rps)}  p99 ${ratio(p, ref, (m) => m.p99ms)}  CPU/req ${ratio(p, ref, (m) => m.cpuUsPerReq)}` +
        `  best-of-${p.rounds.length} rps ${fmt(Math.max(...p.rounds.map((m) => m.rps)) / Math.max(...ref.rounds.map((m) => m.rps)), 3)}`,
    );
  }
  const floor = sides.find((s) => s.name === 'floor');
  const same = sides.find((s) => s.name === 'same');
  if (floor && same) console.log(`\nfloor / same (what any balancer_by_lua costs on this nginx): rps ${ratio(floor, same, (m) => m.rps)}`);
  const minimal = sides.find((s) => s.name === 'minimal');
  const twin = sides.find((s) => s.name === 'twin');
  const bare = sides.find((s) => s.name === 'bare');
  if (bare) console.log(`issue's ratio: portico / bare rps ${ratio(p, bare, (m) => m.rps)} (>= 0.80), CPU per request bare / portico ${ratio(bare, p, (m) => m.cpuUsPerReq)}`);
  if (minimal && twin) {
    console.log(`targets: portico / minimal rps ${ratio(p, minimal, (m) => m.rps)} (>= 0.80), portico / twin rps ${ratio(p, twin, (m) => m.rps)} (>= 1.0)`);
    // on a loaded machine req/s follows the neighbours; the worker's CPU per request (inverted) is the steadier estimate
    console.log(`         the same by CPU per request (reference / portico): minimal ${ratio(minimal, p, (m) => m.cpuUsPerReq)}, twin ${ratio(twin, p, (m) => m.cpuUsPerReq)}`);
  }
  const dynamic = sides.find((s) => s.name === 'dynamic');
  if (dynamic) console.log(`dynamic / portico (Lua route table vs rendered locations, target >= 0.95): rps ${ratio(dynamic, p, (m) => m.rps)}  CPU/req ${ratio(dynamic, p, (m) => m.cpuUsPerReq)}`);
  const errors = sides.reduce((a, s) => a + s.rounds.reduce((b, m) => b + m.non2xx + m.socketErrors, 0), 0);
  console.log(`\nnon-2xx + socket errors, all sides: ${errors}`);
}

const NGINX_VERSION = await new Promise<string>((resolve) => {
  execFile('/usr/sbin/nginx', ['-v'], (_e, _o, stderr) => {
    resolve(stderr.trim());
  });
});
await main();
