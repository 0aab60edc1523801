// The real controller's RSS at rest: `portico --manifests` on N generated Ingresses (bench/scale's cluster, dynamic
// routes), sampled `wait` s after its whole first sync, started as the image starts it (the environment the
// Dockerfile's last stage sets: glibc's malloc trim threshold, docs/adr/0058) and with this process's environment
// alone, the two alternated round by round in one run. Each Portico is stopped by its PID before the next starts.
//   node dist/bench/controller-rest.js [N=10000] [rounds=2] [wait=25]
// Prints, per start: the whole sync's time from spawn, RSS after it, at rest (`wait` s later) and 10 s after that, the
// main thread's heap at rest (its /metrics), the controller's CPU over those last 10 s, and the 1-minute load average.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeCert } from '../test/support/certs.js';
import { startPortico, type Running } from '../test/support/portico.js';
import { clusterFiles, generate } from './scale-gen.js';
import { cpuSeconds, imageEnv, rssMiB } from './scale-probe.js';

const n = Math.min(200_000, Math.max(1, Number(process.argv[2] ?? 10_000) || 10_000));
const rounds = Math.min(10, Math.max(1, Number(process.argv[3] ?? 2)));
const waitS = Math.min(120, Math.max(5, Number(process.argv[4] ?? 25)));

/** Resolves once a log line reports a sync of at least `servers` server blocks (the whole one), or rejects after `ms`. */
async function wholeSync(p: Running, servers: number, ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    for (const line of p.output) {
      if (!line.includes('"msg":"sync"')) continue;
      const s = /"servers":(\d+)/.exec(line);
      if (s && Number(s[1]) >= servers) return;
    }
    await sleep(50);
  }
  throw new Error(`no sync of ${servers} servers within ${ms} ms`);
}

/** The main thread's heap in use and committed (MiB), from the healthz port's /metrics. */
async function mainHeap(p: Running): Promise<{ used: number; total: number }> {
  const text = await (await fetch(`http://127.0.0.1:${p.healthz}/metrics`)).text();
  const num = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20;
  return { used: num('nodejs_heap_size_used_bytes'), total: num('nodejs_heap_size_total_bytes') };
}

const dir = await mkdtemp(join(tmpdir(), 'portico-rest-'));
try {
  const certs = [0, 1, 2, 3].map(() => makeCert(dir, '*.scale.test', { sans: ['*.scale.test'] }));
  const files = join(dir, 'cluster');
  await mkdir(files);
  for (const [file, objects] of clusterFiles(generate(n, [], certs))) await writeFile(join(files, file), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
  const image = await imageEnv();
  const sides = [
    { side: 'image', env: image },
    { side: 'plain', env: Object.fromEntries(Object.keys(image).map((k) => [k, undefined])) },
  ];
  process.stdout.write(`controller RSS at rest, ${n} Ingresses, ${waitS} s after the whole first sync; image env: ${JSON.stringify(image)}\n`);
  process.stdout.write(`side\tsync s\tRSS after sync MiB\tRSS at rest MiB\t${waitS + 10} s MiB\tmain heap used/committed MiB\tCPU the last 10 s %\tload\n`);
  for (let r = 0; r < rounds; r += 1) {
    for (const { side, env } of r % 2 === 0 ? sides : [...sides].reverse()) {
      const t0 = performance.now();
      const p = await startPortico(['--manifests', files, '--worker-processes', '2', '--enable-dynamic-routes', '--log-level', 'info'], { waitHealthy: false, env });
      try {
        const pid = p.proc.pid ?? 0;
        await wholeSync(p, n, Math.max(120_000, n * 6));
        const syncS = (performance.now() - t0) / 1000;
        const afterSync = await rssMiB(pid);
        await sleep(waitS * 1000);
        const rest = await rssMiB(pid);
        const heap = await mainHeap(p);
        const cpu0 = await cpuSeconds(pid);
        await sleep(10_000);
        const cpuPct = ((await cpuSeconds(pid)) - cpu0) * 10;
        const later = await rssMiB(pid);
        process.stdout.write(
          `${side}\t${syncS.toFixed(2)}\t${afterSync.toFixed(0)}\t${rest.toFixed(0)} (${((rest * 2 ** 20) / 1e6).toFixed(0)} MB)\t${later.toFixed(0)}\t${heap.used.toFixed(0)}/${heap.total.toFixed(0)}\t${cpuPct.toFixed(1)}\t${loadavg()[0]!.toFixed(2)}\n`,
        );
      } finally {
        await p.stop();
      }
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
