// bench/l4-njs: the per-connection cost of a Gateway TCP listener whose peer njs picks from a peers table
// (docs/adr/0041) against a static stream upstream, in the same run, both hand-written nginx with the same two backends.
//   static  `upstream { two servers } server { proxy_pass upstream; }`: what Portico renders without njs
//   njs     `js_set $portico_l4_peer portico_l4.peer` (njs/portico_l4.js, Portico's own script) reading a table
//           of the same two endpoints (weights 1:1) per connection: what Portico renders with njs
// wrk over HTTP through the TCP proxy to the backend nginx of lib.ts: with `Connection: close` every request is a new
// proxied TCP connection (the script runs once per connection); keepalive shows the forwarding cost, which njs leaves alone.
// Each proxy nginx has 1 worker on CPU 0, wrk and the backend on CPU 1; rounds interleave; medians and ratios to static.
//   node dist/bench/l4-njs.js [--rounds 3] [--seconds 5]
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backendConf, intArg, interleaved, startNginx, type HandNginx, type RoundSide } from './lib.js';
import { freePort, REPO } from '../test/support/portico.js';

const argv = process.argv.slice(2);
const ROUNDS = intArg(argv, 'rounds', 3, 1, 20);
const SECONDS = intArg(argv, 'seconds', 5, 1, 60);
const PROXY_CPUS = '0';
const CLIENT_CPUS = '1';
const SCRIPT = join(REPO, 'njs/portico_l4.js');

const head = (d: string, js: boolean): string => `load_module /usr/lib/nginx/modules/ngx_stream_module.so;
${js ? 'load_module /usr/lib/nginx/modules/ngx_stream_js_module.so;' : ''}
worker_processes 1;
pid ${d}/nginx.pid;
error_log ${d}/logs/error.log;
events { worker_connections 16384; }`;

async function main(): Promise<void> {
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const backendPorts = [await freePort(), await freePort()];
    const backend: HandNginx = await startNginx('backend', backendConf(backendPorts), CLIENT_CPUS, backendPorts[0]!);
    stops.push(() => backend.stop());
    const tables = await mkdtemp(join(tmpdir(), 'portico-bench-l4-'));
    stops.push(() => rm(tables, { recursive: true, force: true }));
    await chmod(tables, 0o755); // the workers (nobody) read the table, as Portico's l4 folder lets them
    const table = join(tables, 'tcp.json');
    await writeFile(
      table,
      JSON.stringify({
        listener: 'bench/l4/tcp',
        port: 7000,
        route: 'TCPRoute bench/tcp',
        backends: [{ service: 'bench/bench:7000', weight: 1, endpoints: backendPorts.map((p) => `127.0.0.1:${p}`) }],
      }),
    );
    const [staticPort, njsPort] = [await freePort(), await freePort()];
    const statik = await startNginx(
      'l4-static',
      (d) => `${head(d, false)}
stream {
    proxy_connect_timeout 5s; proxy_timeout 600s;
    upstream hand { ${backendPorts.map((p) => `server 127.0.0.1:${p};`).join(' ')} }
    server { listen 127.0.0.1:${staticPort} backlog=4096; proxy_pass hand; }
}
`,
      PROXY_CPUS,
      staticPort,
    );
    stops.push(() => statik.stop());
    const njs = await startNginx(
      'l4-njs',
      (d) => `${head(d, true)}
stream {
    proxy_connect_timeout 5s; proxy_timeout 600s;
    js_import portico_l4 from ${SCRIPT};
    js_set $portico_l4_peer portico_l4.peer;
    upstream portico_l4_none { server 127.0.0.1:1 down; }
    server { listen 127.0.0.1:${njsPort} backlog=4096; set $portico_l4_table ${table}; proxy_pass $portico_l4_peer; }
}
`,
      PROXY_CPUS,
      njsPort,
    );
    stops.push(() => njs.stop());
    console.log(`bench/l4-njs: ${ROUNDS} rounds x ${SECONDS}s, wrk -t1 -c50, 1 nginx worker per side on CPU ${PROXY_CPUS}, wrk + backend on CPU ${CLIENT_CPUS}`);
    const sides: RoundSide[] = [
      { name: 'static', url: `http://127.0.0.1:${staticPort}/`, rps: [] },
      { name: 'njs', url: `http://127.0.0.1:${njsPort}/`, rps: [] },
    ];
    const o = { host: 'bench.test', cpus: CLIENT_CPUS, rounds: ROUNDS, seconds: SECONDS, base: 0 };
    await interleaved('TCP, a new connection per request', sides, { ...o, close: true });
    await interleaved('TCP, keepalive', sides, { ...o, close: false });
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

await main();
