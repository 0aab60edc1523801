// bench/hitless: failed requests and dropped long connections while Portico reloads and changes endpoints, under load.
//
//   npm run bench:hitless -- [--reloads 100] [--endpoint-changes 1000] [--endpoint-pause-ms 60] [--shutdown-timeout 240]
//
// The real `portico --manifests`, 2 nginx workers, one Node backend on two 127.0.0.1 ports (small answers, paced
// 32 MiB downloads, a WebSocket echo). Load (bench/hitless-load.ts): keepalive GET loops, large downloads, WebSockets
// and HTTP/2 sessions, all held open for the whole run. Meanwhile: endpoint changes (the EndpointSlice flipped between
// the two ports, one file rewrite each), then reloading changes (a new Ingress in a file of its own, one per reload,
// each awaited). `--shutdown-timeout` is the ConfigMap's worker-shutdown-timeout: how long an old worker keeps its
// connections after a reload (ingress-nginx default 240 s). Everything is bounded; every process stopped by PID.
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { WebSocketServer } from 'ws';
import { makeCert } from '../test/support/certs.js';
import { configMap, manifestFolder } from '../test/support/manifests.js';
import { ingress, service, slice } from '../test/support/objects.js';
import { freePort, startPortico, syncCount, until, type Running } from '../test/support/portico.js';
import { tlsSecret } from '../test/support/tls-manifests.js';
import { BIG_BYTES, downloads, h2Sessions, keepaliveClients, newCounts, websockets, type Target } from './hitless-load.js';
import { fmt, intArg, sleep } from './lib.js';
import { ask, closeAgent, masterPid, nginxRss } from './scale-probe.js';

const argv = process.argv.slice(2);
const RELOADS = intArg(argv, 'reloads', 100, 0, 1000);
const ENDPOINT_CHANGES = intArg(argv, 'endpoint-changes', 1000, 0, 10_000);
const PAUSE_MS = intArg(argv, 'endpoint-pause-ms', 60, 0, 1000);
const SHUTDOWN = intArg(argv, 'shutdown-timeout', 240, 1, 3600);

/** A backend on `port`: "ok <port>", /big (BIG_BYTES in 64 KiB chunks, one per 8 ms: about 4 s each), a WebSocket echo on /ws. */
function backend(port: number): Promise<{ server: Server; wss: WebSocketServer }> {
  const chunk = Buffer.alloc(65536, 120);
  const server = createServer((req, res) => {
    if (req.url !== '/big') {
      res.end(`ok ${port}`);
      return;
    }
    res.writeHead(200, { 'content-length': String(BIG_BYTES) });
    let sent = 0;
    const next = (): void => {
      if (res.destroyed) return;
      if (sent >= BIG_BYTES) {
        res.end();
        return;
      }
      sent += chunk.length;
      if (res.write(chunk)) setTimeout(next, 8);
      else
        res.once('drain', () => {
          setTimeout(next, 8);
        });
    };
    next();
  });
  const wss = new WebSocketServer({ server, path: '/ws' });
  wss.on('connection', (ws) => {
    ws.on('message', (d) => {
      ws.send(`echo:${String(d)}`);
    });
  });
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () => {
      resolve({ server, wss });
    }),
  );
}

async function main(): Promise<void> {
  const ports = [await freePort(), await freePort()] as const;
  const servers = [await backend(ports[0]), await backend(ports[1])];
  const certDir = await mkdtemp(`${tmpdir()}/portico-hitless-certs-`);
  const folder = await manifestFolder();
  let portico: Running | undefined;
  const counts = newCounts();
  let done = false;
  const stop = (): boolean => done;
  try {
    const pem = makeCert(certDir, 'tls.hitless.test', { sans: ['tls.hitless.test'] });
    const edge = (port: number): unknown[] => [service('web'), slice('web', port, ['127.0.0.1'], { name: 'web-0' })];
    await folder.write('config.json', [configMap('portico', { 'worker-shutdown-timeout': `${SHUTDOWN}s` })]);
    await folder.write('app.json', [
      ingress('app', { className: 'portico', host: 'hitless.test', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }),
      {
        ...ingress('tls', { className: 'portico', host: 'tls.hitless.test', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }),
        spec: {
          ingressClassName: 'portico',
          tls: [{ hosts: ['tls.hitless.test'], secretName: 'tls' }],
          rules: [{ host: 'tls.hitless.test', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }],
        },
      },
      tlsSecret('tls', pem),
    ]);
    await folder.write('edge.json', edge(ports[0]));
    portico = await startPortico(['--manifests', folder.dir, '--worker-processes', '2', '--configmap', 'default/portico']);
    const p = portico;
    await until('hitless.test served', async () => (await ask(p.http, 'hitless.test', '/')).status === 200, 20_000);
    const t: Target = { http: p.http, https: p.https, host: 'hitless.test', tlsHost: 'tls.hitless.test' };
    const loads = [keepaliveClients(t, counts, 8, 5, stop), downloads(t, counts, 2, stop), websockets(t, counts, 4, stop), h2Sessions(t, counts, 2, stop)];
    const load: number[] = [];
    const progress = (what: string): void => {
      load.push(loadavg()[0] ?? 0);
      process.stdout.write(
        `\r\x1b[K[hitless] ${what}: ${counts.requests} requests, ${counts.failed} failed (${counts.resets} resets retried), ws dropped ${counts.wsDropped}, h2 dropped ${counts.h2Dropped}, downloads ${counts.downloads} (${counts.downloadsBroken} broken)`,
      );
    };
    await sleep(1000);
    const dynamicBefore = syncCount(p.output, 'dynamic');
    for (let i = 0; i < ENDPOINT_CHANGES; i += 1) {
      await folder.write('edge.json', edge(ports[(i + 1) % 2]!));
      await sleep(PAUSE_MS);
      if (i % 20 === 0) progress(`endpoint change ${i}/${ENDPOINT_CHANGES}`);
    }
    const reloadsBefore = syncCount(p.output, 'reload');
    for (let i = 0; i < RELOADS; i += 1) {
      const want = reloadsBefore + i + 1;
      // A server alias is a server-level setting: the host is rendered (not in the dynamic route set), so each change reloads.
      const annotations = { 'nginx.ingress.kubernetes.io/server-alias': `alias${i}.hitless.test` };
      await folder.write('churn.json', [ingress('churn', { className: 'portico', host: `churn${i}.hitless.test`, annotations, paths: [{ path: '/', type: 'Prefix', service: 'web' }] })]);
      await until('the reload', () => syncCount(p.output, 'reload') >= want, 30_000, 10).catch(() => undefined);
      await sleep(100);
      progress(`reload ${i + 1}/${RELOADS}`);
    }
    await sleep(2000);
    const master = await masterPid(p.workDir);
    const rss = await nginxRss(master);
    done = true;
    await Promise.race([Promise.all(loads), sleep(30_000)]);
    process.stdout.write('\n');
    const reloads = syncCount(p.output, 'reload') - reloadsBefore;
    const dynamic = syncCount(p.output, 'dynamic') - dynamicBefore;
    console.log(
      `\nbench/hitless: ${ENDPOINT_CHANGES} endpoint changes (every ${PAUSE_MS} ms: ${dynamic} dynamic syncs, the folder watcher coalesces), then ${RELOADS} reloading changes (${reloads} reloads counted); worker-shutdown-timeout ${SHUTDOWN}s`,
    );
    console.log(
      `keepalive GETs: ${counts.requests}, failed ${counts.failed} (${fmt((100 * counts.failed) / Math.max(1, counts.requests), 3)}%) ${JSON.stringify(Object.fromEntries(counts.failures))}`,
    );
    console.log(
      `  resets on a reused keepalive connection before any response byte, retried once as RFC 9112 9.3.1 allows: ${counts.resets}; failed without that retry: ${counts.failed + counts.resets} (${fmt((100 * (counts.failed + counts.resets)) / Math.max(1, counts.requests), 3)}%)`,
    );
    console.log(`WebSockets: ${counts.wsOpened} opened, ${counts.wsDropped} dropped before the end, ${counts.wsEchoes} echoes`);
    console.log(`HTTP/2 sessions: ${counts.h2Sessions}, ${counts.h2Dropped} dropped before the end; streams ${counts.h2Streams}, failed ${counts.h2Failed}`);
    console.log(`downloads of ${BIG_BYTES / 1048576} MiB: ${counts.downloads} (${counts.downloadsBroken} broken, ${fmt(counts.downloadedMiB)} MiB moved)`);
    console.log(`nginx at the end: master + ${rss.workers} worker processes (old workers still shutting down are counted), ${fmt(rss.mib)} MiB RSS`);
    console.log(`load average (1 min) during the run: ${fmt(Math.min(...load), 1)}-${fmt(Math.max(...load), 1)}, 2 CPUs shared with other engineers`);
  } finally {
    done = true;
    await portico?.stop();
    for (const { server, wss } of servers) {
      for (const ws of wss.clients) ws.terminate(); // upgraded sockets: closeAllConnections does not see them
      wss.close();
      server.closeAllConnections();
      server.close();
    }
    await folder.remove();
    closeAgent();
    await rm(certDir, { recursive: true, force: true });
  }
}

await main();
