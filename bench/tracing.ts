// bench/tracing: what OpenTelemetry tracing (docs/adr/0018) costs a proxied request, beside hand-written nginx.
//
//   npm run bench:tracing -- [--rounds 3] [--seconds 5] [--connections 50] [--callgrind]
//
// --callgrind [--keep-profiles]: every nginx under valgrind's callgrind (one process, master_process off) and the instructions its
// worker executes per request instead of requests/s: deterministic on a shared machine, export timers included.
//
// Sides, one nginx worker each pinned to CPU 0, wrk, the backend and the OTLP receiver on CPU 1, interleaved rounds:
//   static    hand-written nginx.conf: static upstream + keepalive, Portico's headers and access log (bench/hand-conf)
//   off       `portico` as installed (no tracing key): dynamic routes, metrics on
//   rendered  the same with --enable-dynamic-routes=false: a traced Portico renders its server blocks, so this is
//             the baseline of the traced sides
//   r0.01     enable-opentelemetry, TraceIdRatioBased 0.01 (not parent-based), exported to a local receiver
//   r1        the same at ratio 1.0: every request a span, exported
//   dead      ratio 1.0, the collector port with nothing listening: every export fails, spans dropped and counted
// The receiver is a Node HTTP server that counts the spans' bytes and answers 200 at once.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configMap, manifestDir, writeManifests } from '../test/support/manifests.js';
import { ingress, ingressClass, service, slice } from '../test/support/objects.js';
import { freePort, get, metric, startPortico, until, type Running } from '../test/support/portico.js';
import { handConf, SAME_HEADERS } from './hand-conf.js';
import { backendConf, callgrindDump, callgrindWrapper, callgrindZero, childPids, fmt, intArg, median, pin, sleep, startNginx, wrk, type WrkResult } from './lib.js';

const argv = process.argv.slice(2);
const ROUNDS = intArg(argv, 'rounds', 3, 1, 20);
const SECONDS = intArg(argv, 'seconds', 5, 1, 60);
const CONNECTIONS = intArg(argv, 'connections', 50, 1, 1000);
const CALLGRIND = argv.includes('--callgrind');
const PROXY_CPUS = '0';
const CLIENT_CPUS = '1';
const HOST = 'bench.test';

interface Side {
  readonly name: string;
  readonly port: number;
  readonly portico?: Running;
  readonly rounds: WrkResult[];
  /** The nginx process that serves (the worker; under --callgrind the one process). */
  readonly master: number;
}

/** --callgrind: instructions per request of each side, ROUNDS times; the medians and their ratios to static. */
async function instructions(sides: readonly Side[], dir: string): Promise<void> {
  console.log(`bench/tracing --callgrind: instructions per request in the serving nginx process, ${ROUNDS} rounds x ${SECONDS}s, wrk -t1 -c${CONNECTIONS}`);
  const per = new Map<string, number[]>(sides.map((s) => [s.name, []]));
  for (const s of sides) await wrk(`http://127.0.0.1:${s.port}/`, HOST, { seconds: 3, connections: CONNECTIONS, cpus: CLIENT_CPUS });
  for (let r = 0; r < ROUNDS; r += 1) {
    for (const s of sides) {
      await callgrindZero(s.master);
      const w = await wrk(`http://127.0.0.1:${s.port}/`, HOST, { seconds: SECONDS, connections: CONNECTIONS, cpus: CLIENT_CPUS });
      const perReq = (await callgrindDump(dir, s.master)) / Math.max(1, w.requests);
      per.get(s.name)!.push(perReq);
      console.log(`  round ${r + 1} ${s.name.padEnd(8)} ${fmt(perReq)} instructions/request (${w.requests} requests, ${w.non2xx + w.socketErrors} errors)`);
    }
  }
  const ref = median(per.get('static') ?? []);
  const base = median(per.get('rendered') ?? []);
  for (const s of sides) {
    const m = median(per.get(s.name) ?? []);
    console.log(`  ${s.name.padEnd(8)} ${fmt(m)} instructions/request; static / ${s.name} ${fmt(ref / m, 3)}; rendered / ${s.name} ${fmt(base / m, 3)}`);
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
    let received = 0;
    const receiver = createServer((req, res) => {
      req.on('data', (c: Buffer) => {
        received += c.length;
      });
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    stops.push(
      () =>
        new Promise<void>((resolve) => {
          receiver.closeAllConnections();
          receiver.close(() => {
            resolve();
          });
        }),
    );
    const receiverPort = (receiver.address() as AddressInfo).port;
    const deadPort = await freePort();
    let cgDir = '';
    let binary: string | undefined;
    if (CALLGRIND) {
      cgDir = await mkdtemp(join(tmpdir(), 'portico-bench-cg-'));
      await chmod(cgDir, 0o777);
      if (argv.includes('--keep-profiles')) console.log(`callgrind dumps kept in ${cgDir}`);
      else stops.push(() => rm(cgDir, { recursive: true, force: true }));
      binary = await callgrindWrapper(cgDir);
    }
    const backendPorts = [await freePort(), await freePort()];
    const backend = await startNginx('backend', backendConf(backendPorts), CLIENT_CPUS, backendPorts[0]!);
    stops.push(() => backend.stop());

    const porticoSide = async (name: string, data: Record<string, string> | undefined, extra: string[] = []): Promise<Side> => {
      const dir = await manifestDir();
      stops.push(() => rm(dir, { recursive: true, force: true }));
      await writeManifests(dir, 'bench.yaml', [
        ingressClass('portico'),
        service('bench'),
        ...backendPorts.map((p, i) => slice('bench', p, ['127.0.0.1'], { name: `bench-${i}` })),
        ingress('bench', { className: 'portico', host: HOST, paths: [{ path: '/', type: 'Prefix', service: 'bench' }] }),
        ...(data ? [configMap('portico', data, 'kube-system')] : []),
      ]);
      const running = await startPortico(
        ['--manifests', dir, '--worker-processes', '1', '--log-level', 'info', ...(data ? ['--configmap', 'kube-system/portico'] : []), ...extra, ...(binary ? ['--nginx-binary', binary] : [])],
        { waitHealthy: false },
      );
      stops.push(() => running.stop());
      // under valgrind on a loaded machine nginx -t and the start may take longer than the tests' 20 s
      await until('portico /healthz', async () => (await get(running.healthz, 'localhost', '/healthz').catch(() => ({ status: 0 }))).status === 200, 120_000, 200);
      const pid = Number((await readFile(join(running.workDir, 'nginx.pid'), 'utf8')).trim());
      for (const p of [pid, ...(await childPids(pid))]) await pin(p, PROXY_CPUS);
      return { name, port: running.http, portico: running, rounds: [], master: CALLGRIND ? pid : ((await childPids(pid))[0] ?? pid) };
    };
    const traced = (port: number, ratio: string): Record<string, string> => ({
      'enable-opentelemetry': 'true',
      'otlp-collector-host': '127.0.0.1',
      'otlp-collector-port': String(port),
      'otel-sampler': 'TraceIdRatioBased',
      'otel-sampler-ratio': ratio,
      'otel-sampler-parent-based': 'false',
    });
    const staticPort = await freePort();
    const hand = await startNginx('static', handConf({ port: staticPort, backends: backendPorts, workers: 1, host: HOST, headers: SAME_HEADERS, serverExtra: '' }), PROXY_CPUS, staticPort, binary);
    stops.push(() => hand.stop());
    const sides: Side[] = [
      { name: 'static', port: staticPort, rounds: [], master: hand.proc.pid ?? 0 },
      await porticoSide('off', undefined),
      await porticoSide('rendered', undefined, ['--enable-dynamic-routes=false']),
      await porticoSide('r0.01', traced(receiverPort, '0.01')),
      await porticoSide('r1', traced(receiverPort, '1')),
      await porticoSide('dead', traced(deadPort, '1')),
    ];
    if (CALLGRIND) {
      await instructions(sides, cgDir);
      return;
    }
    console.log(`bench/tracing: ${ROUNDS} rounds x ${sides.length} sides x ${SECONDS}s, wrk -t1 -c${CONNECTIONS}, 1 nginx worker on CPU ${PROXY_CPUS}, wrk + backend + receiver on CPU ${CLIENT_CPUS}`);
    for (const s of sides) await wrk(`http://127.0.0.1:${s.port}/`, HOST, { seconds: 1, connections: CONNECTIONS, cpus: CLIENT_CPUS }); // warm-up
    console.log('round  side      req/s   p50 ms  p99 ms  errors');
    for (let r = 0; r < ROUNDS; r += 1) {
      for (const s of sides.map((_, i) => sides[(i + r) % sides.length]!)) {
        const m = await wrk(`http://127.0.0.1:${s.port}/`, HOST, { seconds: SECONDS, connections: CONNECTIONS, cpus: CLIENT_CPUS });
        s.rounds.push(m);
        console.log(
          `${String(r + 1).padStart(5)}  ${s.name.padEnd(8)} ${fmt(m.rps).padStart(7)}  ${fmt(m.p50ms, 2).padStart(6)}  ${fmt(m.p99ms, 2).padStart(6)}  ${String(m.non2xx + m.socketErrors).padStart(6)}`,
        );
        await sleep(200);
      }
    }
    await sleep(6000); // the last exports (5 s schedule) and the metrics flush
    const stat = sides[0]!;
    console.log('\nmedian req/s (min-max), ratio to static (median of per-round paired ratios), p99:');
    for (const s of sides) {
      const rps = s.rounds.map((m) => m.rps);
      const paired = s.rounds.map((m, i) => m.rps / stat.rounds[i]!.rps);
      console.log(
        `  ${s.name.padEnd(8)} ${fmt(median(rps)).padStart(7)} (${fmt(Math.min(...rps))}-${fmt(Math.max(...rps))})  ${fmt(median(paired), 3)} (${fmt(Math.min(...paired), 3)}-${fmt(Math.max(...paired), 3)})  p99 ${fmt(median(s.rounds.map((m) => m.p99ms)), 2)} ms`,
      );
    }
    for (const s of sides.filter((x) => x.portico && ['r0.01', 'r1', 'dead'].includes(x.name))) {
      const p = s.portico!;
      const read = (n: string): Promise<number> => metric(p, n).catch(() => Number.NaN);
      console.log(
        `  ${s.name}: spans exported ${await read('portico_tracing_spans_exported_total')}, dropped (queue full) ${await read('portico_tracing_spans_dropped_total{reason="queue_full"}')}, failed exports ${await read('portico_tracing_spans_dropped_total{reason="export_failed"}')}`,
      );
    }
    console.log(`  receiver: ${fmt(received / 1e6, 1)} MB of OTLP JSON`);
    const errors = sides.reduce((a, s) => a + s.rounds.reduce((b, m) => b + m.non2xx + m.socketErrors, 0), 0);
    console.log(`non-2xx + socket errors, all sides: ${errors}`);
  } finally {
    await stopAll();
  }
}

await main();
