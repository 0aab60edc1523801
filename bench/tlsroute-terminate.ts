// bench/tlsroute-terminate: a TLSRoute on a TLS Terminate listener (docs/adr/0032) against hand-written nginx that
// terminates TLS in a stream server and proxies to the same backends, in the same run.
//   portico  the real `portico` command: listener port 8443 (--gateway-port-map) → ssl_preread picks the SNI → a unix
//            socket server terminates TLS with the listener's certificate → the two backend ports
//   hand     hand-written: `stream { upstream { two servers } server { listen ssl; ssl_certificate; proxy_pass } }`
// wrk over HTTPS (SNI localhost) to the backend nginx of lib.ts: keepalive (bytes forwarded on open connections) and
// Connection: close (a TLS handshake and a proxied TCP connection per request). Each proxy nginx has 1 worker on CPU 0,
// wrk and the backend on CPU 1; rounds interleave the sides and medians are reported as ratios to `hand`.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { backendConf, childPids, intArg, interleaved, pin, startNginx, type HandNginx, type RoundSide } from './lib.js';
import { freePort, startPortico, type Running } from '../test/support/portico.js';
import { manifestDir, writeManifests } from '../test/support/manifests.js';
import { service, slice } from '../test/support/objects.js';
import { makeCert } from '../test/support/certs.js';
import { tlsSecret } from '../test/support/tls-manifests.js';
import { gatewayClass } from '../test/support/gateway.js';

const argv = process.argv.slice(2);
const ROUNDS = intArg(argv, 'rounds', 3, 1, 20);
const SECONDS = intArg(argv, 'seconds', 5, 1, 60);
const PROXY_CPUS = '0';
const CLIENT_CPUS = '1';
const HOST = 'localhost';
const V1 = 'gateway.networking.k8s.io/v1';

type Side = RoundSide;

/** Interleaved rounds of the sides, ratios to `the last` side (bench/lib.ts). */
const rounds = (title: string, sides: Side[], close: boolean): Promise<void> =>
  interleaved(title, sides, { host: HOST, cpus: CLIENT_CPUS, rounds: ROUNDS, seconds: SECONDS, close, base: sides.length - 1 });

/** What one handshake negotiated on a side (protocol, cipher, key exchange), so the sides are known to do the same work. */
function negotiated(port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port, servername: HOST, rejectUnauthorized: false, timeout: 5000 }, () => {
      const k = s.getEphemeralKeyInfo();
      const out = `${s.getProtocol() ?? '?'} ${s.getCipher().name} ${k && 'name' in k && typeof k.name === 'string' ? k.name : '?'}`;
      s.destroy();
      resolve(out);
    });
    s.on('error', (err: Error) => {
      resolve(`error: ${err.message}`);
    });
  });
}

async function pinPortico(p: Running): Promise<void> {
  const master = Number((await readFile(join(p.workDir, 'nginx.pid'), 'utf8')).trim());
  for (const pid of [master, ...(await childPids(master))]) await pin(pid, PROXY_CPUS);
}

async function main(): Promise<void> {
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const backendPorts = [await freePort(), await freePort()];
    const backend: HandNginx = await startNginx('backend', backendConf(backendPorts), CLIENT_CPUS, backendPorts[0]!);
    stops.push(() => backend.stop());
    const dir = await manifestDir();
    stops.push(() => rm(dir, { recursive: true, force: true }));
    const fixtures = await mkdtemp(join(tmpdir(), 'portico-bench-tlsterm-'));
    stops.push(() => rm(fixtures, { recursive: true, force: true }));
    const cert = makeCert(fixtures, HOST, { sans: [HOST] });
    await writeFile(join(fixtures, 'hand.pem'), `${cert.cert.trim()}\n${cert.key.trim()}\n`, { mode: 0o600 });
    const listenerPort = await freePort();
    await writeManifests(dir, 'bench.json', [
      gatewayClass('portico'),
      tlsSecret('bench-tls', cert),
      service('bench', 'default', [{ name: 'http', port: 7000 }]),
      ...backendPorts.map((p, i) => slice('bench', p, ['127.0.0.1'], { name: `bench-${i}` })),
      {
        apiVersion: V1,
        kind: 'Gateway',
        metadata: { name: 'gw', namespace: 'default' },
        spec: { gatewayClassName: 'portico', listeners: [{ name: 'term', port: 8443, protocol: 'TLS', tls: { mode: 'Terminate', certificateRefs: [{ name: 'bench-tls' }] } }] },
      },
      {
        apiVersion: V1,
        kind: 'TLSRoute',
        metadata: { name: 'bench', namespace: 'default' },
        spec: { parentRefs: [{ name: 'gw' }], hostnames: [HOST], rules: [{ backendRefs: [{ name: 'bench', port: 7000 }] }] },
      },
    ]);
    const portico = await startPortico(['--manifests', dir, '--worker-processes', '1', '--log-level', 'info', '--gateway-port-map', `8443=${listenerPort}`]);
    stops.push(() => portico.stop());
    await pinPortico(portico);
    const handPort = await freePort();
    // lib.ts startNginx probes over plain HTTP: a plain server on a port of its own says the nginx is up
    const probePort = await freePort();
    const hand = await startNginx(
      'hand-tls-stream',
      (d) => `load_module /usr/lib/nginx/modules/ngx_stream_module.so;
worker_processes 1;
pid ${d}/nginx.pid;
events { worker_connections 16384; }
stream {
    proxy_connect_timeout 5s; proxy_timeout 600s;
    upstream hand { ${backendPorts.map((p) => `server 127.0.0.1:${p};`).join(' ')} }
    server {
        listen 127.0.0.1:${handPort} ssl backlog=4096;
        ssl_certificate ${fixtures}/hand.pem; ssl_certificate_key ${fixtures}/hand.pem; ssl_protocols TLSv1.2 TLSv1.3;
        proxy_pass hand;
    }
    server { listen 127.0.0.1:${probePort}; proxy_pass hand; }
}
`,
      PROXY_CPUS,
      probePort,
    );
    stops.push(() => hand.stop());

    console.log(`bench/tlsroute-terminate: ${ROUNDS} rounds x ${SECONDS}s, wrk -t1 -c50 over TLS (SNI ${HOST}), 1 nginx worker per side on CPU ${PROXY_CPUS}, wrk + backend on CPU ${CLIENT_CPUS}`);
    console.log(`negotiated: portico ${await negotiated(listenerPort)}; hand ${await negotiated(handPort)}`);
    const sides: Side[] = [
      { name: 'portico', url: `https://${HOST}:${listenerPort}/`, rps: [] },
      { name: 'hand', url: `https://${HOST}:${handPort}/`, rps: [] },
    ];
    await rounds('TLS Terminate, keepalive', sides, false);
    await rounds('TLS Terminate, a new TLS connection per request', sides, true);
  } finally {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  }
}

await main();
