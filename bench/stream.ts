// bench/stream: TCP through Portico's stream section vs hand-written nginx stream, ssl_preread's cost, stream reloads.
//
// Part 1, TCP: wrk over HTTP through a TCP proxy to the backend nginx of lib.ts, keepalive (bytes forwarded on open
// connections) and Connection: close (a new proxied TCP connection per request: the per-connection cost).
//   portico  the real `portico` command, --tcp-services-configmap: a port whose Service has the two backend ports
//   hand     hand-written nginx: `stream { upstream { two servers } server { listen; proxy_pass } }`
// Part 2, ssl_preread: Portico terminating HTTPS for one host, with and without --enable-ssl-passthrough (with it,
// every connection passes the SNI front and a unix socket with a PROXY line before the HTTPS server).
// Part 3, stream endpoint changes: EndpointSlice rewritten in the manifest folder → first TCP connection answered by
// the new endpoint (a reload: docs/adr/0013), `--changes` times.
// Every proxy nginx on CPU 0, wrk and the backend on CPU 1. Rounds interleave the sides; medians are reported.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backendConf, childPids, fmt, intArg, interleaved, median, pin, sleep, startNginx, type HandNginx, type RoundSide } from './lib.js';
import { freePort, startPortico, type Running } from '../test/support/portico.js';
import { configMap, manifestDir, writeManifests } from '../test/support/manifests.js';
import { ingress, ingressClass, slice } from '../test/support/objects.js';
import { makeCert } from '../test/support/certs.js';
import { tlsSecret } from '../test/support/tls-manifests.js';
import { tcpAsk } from '../test/support/stream-backends.js';

const argv = process.argv.slice(2);
const ROUNDS = intArg(argv, 'rounds', 3, 1, 20);
const SECONDS = intArg(argv, 'seconds', 5, 1, 60);
const CHANGES = intArg(argv, 'changes', 10, 1, 100);
const PROXY_CPUS = '0';
const CLIENT_CPUS = '1';
const HOST = 'bench.test';

type Side = RoundSide;

/** Interleaved rounds of the sides, ratios to `the first` side (bench/lib.ts). */
const rounds = (title: string, sides: Side[], close: boolean): Promise<void> => interleaved(title, sides, { host: HOST, cpus: CLIENT_CPUS, rounds: ROUNDS, seconds: SECONDS, close, base: 0 });

async function pinPortico(p: Running): Promise<void> {
  const master = Number((await readFile(join(p.workDir, 'nginx.pid'), 'utf8')).trim());
  for (const pid of [master, ...(await childPids(master))]) await pin(pid, PROXY_CPUS);
}

const tcpService = (name: string, ports: readonly number[]): unknown[] => [
  { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ports: [{ name: 'tcp', port: 7000, protocol: 'TCP' }] } },
  ...ports.map((p, i) => ({ ...slice(name, p, ['127.0.0.1'], { name: `${name}-${i}`, portName: 'tcp' }), ports: [{ name: 'tcp', port: p, protocol: 'TCP' }] })),
];

async function main(): Promise<void> {
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const backendPorts = [await freePort(), await freePort()];
    const backend: HandNginx = await startNginx('backend', backendConf(backendPorts), CLIENT_CPUS, backendPorts[0]!);
    stops.push(() => backend.stop());
    const dir = await manifestDir();
    stops.push(() => rm(dir, { recursive: true, force: true }));
    const fixtures = await mkdtemp(join(tmpdir(), 'portico-bench-certs-'));
    stops.push(() => rm(fixtures, { recursive: true, force: true }));
    const cert = makeCert(fixtures, HOST, { sans: [HOST] });
    const tcpPort = await freePort();
    const objects = (ports: readonly number[]): unknown[] => [
      ingressClass('portico'),
      tlsSecret('bench-tls', cert),
      ...tcpService('bench', ports),
      {
        ...ingress('bench', { className: 'portico', host: HOST, paths: [{ path: '/', type: 'Prefix', service: 'bench', port: 7000 }] }),
        spec: {
          ingressClassName: 'portico',
          tls: [{ hosts: [HOST], secretName: 'bench-tls' }],
          rules: [{ host: HOST, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'bench', port: { number: 7000 } } } }] } }],
        },
      },
      configMap('tcp', { [String(tcpPort)]: 'default/bench:7000' }, 'ingress'),
    ];
    await writeManifests(dir, 'bench.json', objects(backendPorts));
    const common = ['--manifests', dir, '--worker-processes', '1', '--log-level', 'info'];
    const portico = await startPortico([...common, '--tcp-services-configmap', 'ingress/tcp']);
    stops.push(() => portico.stop());
    const front = await startPortico([...common, '--enable-ssl-passthrough']);
    stops.push(() => front.stop());
    for (const p of [portico, front]) await pinPortico(p);
    const handPort = await freePort();
    const hand = await startNginx(
      'hand-stream',
      (d) => `load_module /usr/lib/nginx/modules/ngx_stream_module.so;
worker_processes 1;
pid ${d}/nginx.pid;
events { worker_connections 16384; }
stream {
    proxy_connect_timeout 5s; proxy_timeout 600s;
    upstream hand { ${backendPorts.map((p) => `server 127.0.0.1:${p};`).join(' ')} }
    server { listen 127.0.0.1:${handPort} backlog=4096; proxy_pass hand; }
}
`,
      PROXY_CPUS,
      handPort,
    );
    stops.push(() => hand.stop());

    console.log(`bench/stream: ${ROUNDS} rounds x ${SECONDS}s, wrk -t1 -c50, 1 nginx worker per side on CPU ${PROXY_CPUS}, wrk + backend on CPU ${CLIENT_CPUS}`);
    const tcp: Side[] = [
      { name: 'portico', url: `http://127.0.0.1:${tcpPort}/`, rps: [] },
      { name: 'hand', url: `http://127.0.0.1:${handPort}/`, rps: [] },
    ];
    const tls: Side[] = [
      { name: 'terminated', url: `https://127.0.0.1:${portico.https}/`, rps: [] },
      { name: 'ssl_preread front', url: `https://127.0.0.1:${front.https}/`, rps: [] },
    ];
    if (!argv.includes('--reloads-only')) {
      await rounds('TCP, keepalive', tcp, false);
      await rounds('TCP, a new connection per request', tcp, true);
      await rounds('HTTPS, keepalive', tls, false);
      await rounds('HTTPS, a new TLS connection per request', tls, true);
    }

    // Part 3: stream endpoint changes are reloads; time from the manifest write to the new endpoint answering.
    const ids = await Promise.all(backendPorts.map(async (p) => (await fetch(`http://127.0.0.1:${p}/`)).text()));
    const times: number[] = [];
    const answers = (): Promise<string> => tcpAsk(tcpPort, 'GET / HTTP/1.0\r\n\r\n', 1000).catch(() => '');
    // Start from one endpoint, then alternate: the new endpoint answering three times in a row is the change served.
    for (let i = -1; i < CHANGES; i += 1) {
      const want = `ok ${backendPorts[(i + 2) % 2]!}`;
      const started = Date.now();
      await writeManifests(dir, 'bench.json', objects([backendPorts[(i + 2) % 2]!]));
      let streak = 0;
      for (let k = 0; k < 2000 && streak < 3; k += 1) {
        // bounded: 2,000 tries, about 20 s
        streak = (await answers()).includes(want) ? streak + 1 : 0;
        if (streak === 0) await sleep(10);
      }
      if (i >= 0) times.push(Date.now() - started);
    }
    const syncs = portico.output.filter((l) => l.includes('"msg":"sync"'));
    const reloads = Math.max(0, ...syncs.map((l) => Number(/"streamReloads":(\d+)/.exec(l)?.[1] ?? 0)));
    console.log(
      `stream endpoint change -> new endpoint answering (${CHANGES} changes, backends ${ids.map((x) => x.trim()).join(', ')}): median ${fmt(median(times))} ms, max ${fmt(Math.max(...times))} ms; streamReloads counted: ${reloads} (of ${syncs.length} syncs)`,
    );
  } finally {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  }
}

await main();
