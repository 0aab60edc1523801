// bench/proxy-attribute: where a proxied request's user-space instructions go, feature by feature.
//
//   npm run bench:proxy-attribute -- [--rounds 2] [--seconds 3] [--connections 50] [--only a,b] [--timed] [--keep-profiles]
//
// Every side runs under valgrind's callgrind as one nginx process (see bench/lib.ts callgrindWrapper), pinned to
// CPU 0, with wrk and the backend on CPU 1, and reports instructions per request (deterministic to about ±0.5% on a
// loaded machine; no kernel time). Sides: Portico as installed (`portico`), Portico with --enable-metrics=false, and
// hand-written variants of bench/proxy-features.ts's `twin`, each with one feature removed, changed or added. The
// difference to `twin` is that feature's cost per request. Portico's sides also get the per-phase table
// (bench/lua-phases.ts): each Lua entry's own instructions per request, read from the same dump, and the side without
// them, beside `minimal` and `static`. --timed: the same sides without valgrind, pinned (proxy nginx on CPU 0, wrk and
// backend on CPU 1), reporting requests/s instead, with the load average (noisy on a shared machine).
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingress, ingressClass, service, slice } from '../test/support/objects.js';
import { manifestDir, writeManifests } from '../test/support/manifests.js';
import { freePort, get, REPO, startPortico } from '../test/support/portico.js';
import { backendConf, callgrindDump, callgrindWrapper, callgrindZero, childPids, fmt, intArg, median, NGINX, pin, sleep, startNginx, wrk } from './lib.js';
import { entryCosts, LUA_ENTRIES, newestDump } from './lua-phases.js';
import { featureConf, MINIMAL, TWIN, type Features } from './proxy-features.js';

const argv = process.argv.slice(2);
const ROUNDS = intArg(argv, 'rounds', 2, 1, 10);
const SECONDS = intArg(argv, 'seconds', 3, 1, 30);
const CONNECTIONS = intArg(argv, 'connections', 50, 1, 1000);
const PROXY_CPUS = '0';
const CLIENT_CPUS = '1';
const HOST = 'bench.test';
const TIMED = argv.includes('--timed');
/** Requests each side serves before measuring (LuaJIT compiles the hot path within the first few hundred). */
const WARM_REQUESTS = intArg(argv, 'warm-requests', 3000, 0, 1_000_000);
/** --keep-profiles: leave the callgrind dumps for callgrind_annotate. */
const KEEP = argv.includes('--keep-profiles');
/** --only a,b: measure only these sides (names as in the table; twin, minimal and bare are always measured). */
const ONLY = ((): Set<string> | undefined => {
  const i = argv.findIndex((a) => a === '--only' || a.startsWith('--only='));
  if (i < 0) return undefined;
  const v = argv[i]!.startsWith('--only=') ? argv[i]!.slice(7) : (argv[i + 1] ?? '');
  return new Set(['twin', 'minimal', 'bare', ...v.split(',').filter(Boolean)]);
})();
const wanted = (name: string): boolean => ONLY === undefined || ONLY.has(name);

/** name, what it shows, features. The C-only features are measured on `static` (the twin with a static upstream): its
 * instruction counts repeat to ±0.5% from process to process, where a Lua-balanced one moves by up to ±1,500. */
const S: Features = { ...TWIN, balancer: 'static' };
const VARIANTS: readonly (readonly [string, string, Features])[] = [
  ['twin', 'hand-written: ingress-nginx default headers, maps, request id, buffered log, Lua balancer', TWIN],
  ['twin#2', 'the same again in another process (process-to-process spread of a Lua-balanced nginx)', TWIN],
  ['minimal', "bench/proxy's minimal: static upstream, Host + Connection, same log", MINIMAL],
  ['bare', "bench/proxy's bare: minimal without the access log (the issue's static nginx, its 1.00)", { ...MINIMAL, log: 'off' }],
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
  ['S+lua-reqid-pkg', 'S+lua-reqid, the chunk reaching the module through package.loaded instead of require()', { ...S, luaRequestId: true, luaChunk: 'loaded' }],
];

interface Side {
  readonly name: string;
  readonly what: string;
  readonly port: number;
  readonly pid: number;
}

const PORTICO_SIDES = new Set(['rendered', 'nometrics', 'rendered-nometrics', 'S+lua-reqid']);

async function loadAvg(): Promise<string> {
  return (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
}

/** The per-phase table: each Lua entry's instructions per request (median of rounds), and the side without them. */
function printPhases(entries: ReadonlyMap<string, ReadonlyMap<string, readonly number[]>>, per: ReadonlyMap<string, readonly number[]>): void {
  const minimal = median(per.get('minimal')!);
  const stat = per.has('static') ? median(per.get('static')!) : Number.NaN;
  const bare = per.has('bare') ? median(per.get('bare')!) : Number.NaN;
  const cols = LUA_ENTRIES.map(([name]) => name);
  console.log(`\nper Lua entry, instructions per request (callgrind inclusive cost of the entry's C function / requests)`);
  console.log(
    `${'side'.padEnd(19)}${'total'.padStart(8)}${cols.map((c) => c.split(' ')[0]!.padStart(18)).join('')}${'without Lua'.padStart(13)}${'bare/side'.padStart(11)}${'min/side'.padStart(10)}${'static/side'.padStart(13)}`,
  );
  for (const [side, bySide] of entries) {
    const total = median(per.get(side)!);
    const costs = cols.map((c) => median(bySide.get(c) ?? [0]));
    const lua = costs.reduce((a, b) => a + b, 0);
    console.log(
      `${side.padEnd(19)}${fmt(total).padStart(8)}${costs.map((c) => (c > 0 ? fmt(c) : '-').padStart(18)).join('')}${fmt(total - lua).padStart(13)}${fmt(bare / total, 3).padStart(11)}${fmt(minimal / total, 3).padStart(10)}${fmt(stat / total, 3).padStart(13)}`,
    );
  }
}

/** Warm-up by requests, not time: under valgrind on a loaded machine 2 s can be a few hundred requests, before
 * LuaJIT has compiled the hot path, and trace recording would then be counted as the requests' cost. */
async function warmUp(sides: readonly Side[]): Promise<void> {
  for (const s of sides) {
    let done = 0;
    for (let i = 0; i < 15 && done < WARM_REQUESTS; i += 1) done += (await wrk(`http://127.0.0.1:${s.port}/`, HOST, { seconds: 2, connections: CONNECTIONS, cpus: CLIENT_CPUS })).requests;
  }
}

/** What each side's process does without requests (timers: the metrics flush, the log buffer's flush), per second,
 * taken off every round: with few requests per second under valgrind it would otherwise be counted per request. */
async function idleRates(sides: readonly Side[], cgDir: string): Promise<Map<string, number>> {
  const idle = new Map<string, number>();
  for (const s of sides) {
    await callgrindZero(s.pid);
    const t0 = Date.now();
    await sleep(SECONDS * 1000);
    idle.set(s.name, (await callgrindDump(cgDir, s.pid)) / ((Date.now() - t0) / 1000));
  }
  return idle;
}

/** ROUNDS interleaved rounds: per side, instructions per request (or requests/s with --timed), and for Portico's
 * sides each Lua entry's instructions per request. */
async function measure(sides: readonly Side[], cgDir: string, idle: ReadonlyMap<string, number>): Promise<{ per: Map<string, number[]>; entries: Map<string, Map<string, number[]>> }> {
  const per = new Map<string, number[]>(sides.map((s) => [s.name, []]));
  const entries = new Map<string, Map<string, number[]>>(); // side -> Lua entry -> instructions per request, per round
  for (let r = 0; r < ROUNDS; r += 1) {
    for (const s of sides) {
      if (!TIMED) await callgrindZero(s.pid);
      const t0 = Date.now();
      const w = await wrk(`http://127.0.0.1:${s.port}/`, HOST, { seconds: SECONDS, connections: CONNECTIONS, cpus: CLIENT_CPUS });
      // under valgrind on a loaded machine wrk may time out a few of its 50 connections: said, not hidden
      if (w.non2xx + w.socketErrors > 0) console.log(`  ${s.name} round ${r + 1}: ${w.non2xx} non-2xx, ${w.socketErrors} socket errors of ${w.requests} requests`);
      // a round that is more than 1% errors measured error responses, not the proxied request: left out (n/a)
      if (w.non2xx > w.requests / 100) {
        if (!TIMED) await callgrindDump(cgDir, s.pid);
        continue;
      }
      const n = Math.max(1, w.requests);
      if (TIMED) {
        per.get(s.name)!.push(w.rps);
        continue;
      }
      const ir = await callgrindDump(cgDir, s.pid);
      per.get(s.name)!.push((ir - (idle.get(s.name) ?? 0) * ((Date.now() - t0) / 1000)) / n);
      const dump = await newestDump(cgDir, s.pid);
      if (dump === undefined || (!s.name.startsWith('portico') && !PORTICO_SIDES.has(s.name))) continue;
      const bySide = entries.get(s.name) ?? new Map<string, number[]>();
      entries.set(s.name, bySide);
      for (const [entry, cost] of await entryCosts(dump)) bySide.set(entry, [...(bySide.get(entry) ?? []), cost / n]);
    }
  }
  return { per, entries };
}

/** The sides' table: median (min-max), the difference to `twin`, and the share of `minimal`'s speed. */
function printSides(sides: readonly Side[], per: ReadonlyMap<string, readonly number[]>): void {
  const twin = median(per.get('twin')!);
  const minimal = median(per.get('minimal')!);
  // requests/s: a side over minimal; instructions: minimal over a side (both: the side's share of minimal's speed)
  const share = (m: number): number => (TIMED ? m / minimal : minimal / m);
  console.log(`\n${'side'.padEnd(19)}${(TIMED ? 'req/s' : 'instr/req').padStart(10)}${'(min-max)'.padStart(16)}${'vs twin'.padStart(9)}${'share'.padStart(7)}  what (share: of minimal's speed)`);
  for (const s of sides) {
    const xs = per.get(s.name)!;
    const m = median(xs);
    const delta = m - twin;
    console.log(
      `${s.name.padEnd(19)}${fmt(m).padStart(10)}${`(${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))})`.padStart(16)}${`${delta >= 0 ? '+' : ''}${fmt(delta)}`.padStart(9)}${fmt(share(m), 3).padStart(7)}  ${s.what}`,
    );
  }
  // the goal's figure: Portico as installed against static nginx (`static`: the same job, no Lua) and `minimal`
  const portico = per.get('portico');
  const stat = per.get('static');
  if (portico && stat) {
    const [p, st] = [median(portico), median(stat)];
    console.log(`\nportico (as installed) / static: ${fmt(TIMED ? p / st : st / p, 3)}; / minimal: ${fmt(share(p), 3)} (${TIMED ? 'requests/s' : 'by instructions'}, target >= 0.80)`);
  }
  const bare = per.get('bare');
  if (portico && bare && bare.length > 0) {
    const [p, b] = [median(portico), median(bare)];
    console.log(`portico (as installed) / bare (the issue's static nginx): ${fmt(TIMED ? p / b : b / p, 3)} (${TIMED ? 'requests/s' : 'by instructions'})`);
  }
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
    if (KEEP) console.log(`callgrind dumps kept in ${cgDir}`);
    else stops.push(() => rm(cgDir, { recursive: true, force: true }));
    const binary = TIMED ? NGINX : await callgrindWrapper(cgDir);
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
      const p = await startPortico(['--manifests', dir, '--worker-processes', '1', '--log-level', 'info', '--nginx-binary', binary, ...extra], { healthyTimeoutMs: 120_000 }); // nginx -t and start under valgrind
      stops.push(() => p.stop());
      const pid = Number((await readFile(join(p.workDir, 'nginx.pid'), 'utf8')).trim());
      if (TIMED) for (const q of [pid, ...(await childPids(pid))]) await pin(q, PROXY_CPUS);
      sides.push({ name, what, port: p.http, pid });
    }
    for (const [name, what, features] of VARIANTS.filter(([n]) => wanted(n))) {
      const port = await freePort();
      const n = await startNginx(name.replace(/[^a-z]/g, ''), featureConf({ port, backends: backendPorts, workers: 1, host: HOST, features, luaDir: join(REPO, 'lua') }), PROXY_CPUS, port, binary);
      stops.push(() => n.stop());
      sides.push({ name, what, port, pid: n.proc.pid ?? 0 });
    }

    const unit = TIMED ? 'requests/s (no valgrind, pinned)' : 'instructions per request (callgrind)';
    console.log(`bench/proxy-attribute: ${unit}, ${ROUNDS} rounds x ${SECONDS}s per side, wrk -t1 -c${CONNECTIONS}, load ${await loadAvg()}`);
    await warmUp(sides);
    for (const s of sides) {
      const reply = await get(s.port, HOST, '/', { timeoutMs: 30_000 }).catch((err: unknown) => ({ status: 0, body: String(err) }));
      if (reply.status !== 200) console.log(`  ${s.name} answers ${reply.status} after the warm-up: ${reply.body.slice(0, 200)}`);
    }
    const { per, entries } = await measure(sides, cgDir, TIMED ? new Map() : await idleRates(sides, cgDir));
    printSides(sides, per);
    if (!TIMED) printPhases(entries, per);
    console.log(`load at the end: ${await loadAvg()}`);
  } finally {
    await stopAll();
  }
}

await main();
