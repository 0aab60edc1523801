// The admission webhook at N existing Ingresses: the real HTTPS server (src/webhook/server.ts) and the real review
// worker (worker/offload.ts) over a Store holding bench/scale's generated cluster, as `portico` wires them.
//   node dist/bench/webhook.js [--sizes 10000,100000] [--reviews 200] [--concurrency 50]
// Per size: the cluster crossing to the review worker and indexed (Offload.prepare, as `portico` does once its sources
// have listed), the first review, then `reviews` reviews one after another and `reviews` more from `concurrency`
// clients at once; p50/p99 of each review's round trip. The clients run in a process of their own
// (bench/webhook-client.ts), as the API server does, over keep-alive connections opened before the measured reviews,
// as the API server keeps them (the reviews that open them are reported apart: "opening"). Candidates cycle through
// three shapes: a new host (allowed), a new Ingress on an existing host and path of another namespace (refused: the
// older one owns it), an update of an existing Ingress (allowed). Beside it, in-process: the former judgement (the
// whole cluster's model per review), 3 samples (up to 30,000 Ingresses).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { fork } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFlags } from '../src/config/flags.js';
import { createLogger } from '../src/log.js';
import type { Ingress, Snapshot } from '../src/model/input.js';
import { admissionChecker, renderOptions } from '../src/pipeline/build.js';
import { Store } from '../src/store/store.js';
import { startWebhook } from '../src/webhook/server.js';
import { Offload } from '../src/worker/offload.js';
import { makeCert } from '../test/support/certs.js';
import type { ClientJob, ClientResult } from './webhook-client.js';
import { fmt, intArg, median, percentile } from './lib.js';
import { generate, hostOf, nsOf, storeCluster } from './scale-gen.js';

const argv = process.argv.slice(2);
const at = argv.indexOf('--sizes');
const sizes = (at >= 0 ? (argv[at + 1] ?? '') : '10000,100000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0 && n <= 200_000);
const reviews = intArg(argv, 'reviews', 200, 10, 5000);
const concurrency = intArg(argv, 'concurrency', 50, 1, 200);
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const mib = (b: number): number => Math.round(b / 2 ** 20);

function candidate(k: number, n: number, namespaces: number, existing: readonly Ingress[]): Ingress {
  const shape = k % 3;
  const i = (k * 7919) % n;
  if (shape === 2) {
    const old = existing[i];
    if (old) return { ...old, metadata: { ...old.metadata, annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': `${(k % 50) + 1}m` } } };
  }
  const host = shape === 0 ? `new-${k}.bench.test` : hostOf(i);
  // A namespace other than app i's: its path / is the older Ingress's (refused).
  const namespace = nsOf(i + 1, namespaces) === nsOf(i, namespaces) ? 'bench-other' : nsOf(i + 1, namespaces);
  const backend = { service: { name: 'svc', port: { number: 80 } } };
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: `cand-${k}`, namespace },
    spec: { ingressClassName: 'portico', rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend }] } }] },
  };
}

function reviewBody(k: number, ing: Ingress): string {
  const uid = `bench-${k}`;
  const request = { uid, kind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' }, operation: 'CREATE', namespace: ing.metadata?.namespace, name: ing.metadata?.name, object: ing };
  return JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });
}

async function bench(n: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-bench-webhook-'));
  const certs = [0, 1, 2, 3].map(() => makeCert(dir, '*.scale.test', { sans: ['*.scale.test'] }));
  const hookCert = makeCert(dir, 'localhost', { sans: ['localhost'] });
  await writeFile(join(dir, 'hook.crt'), hookCert.cert);
  await writeFile(join(dir, 'hook.key'), hookCert.key, { mode: 0o600 });
  const config = parseFlags(['--manifests', dir, '--enable-dynamic-routes'], {});
  const log = createLogger('silent');
  const store = new Store<Snapshot>();
  const c = generate(n, [], certs);
  storeCluster(store, c);
  const existing = store.snapshot().ingresses;
  const reviewer = new Offload(config, renderOptions(config, undefined));
  const checker = admissionChecker(config, log);
  const hook = await startWebhook({
    host: '127.0.0.1',
    port: 0,
    certFile: join(dir, 'hook.crt'),
    keyFile: join(dir, 'hook.key'),
    snapshot: () => store.snapshot(),
    checker,
    review: (body, snap) => reviewer.review(body, snap),
    log,
    reloadIntervalMs: 0,
  });
  const client = fork(new URL('./webhook-client.js', import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = (bodies: readonly string[], concurrency: number, warm: boolean): Promise<ClientResult> =>
    new Promise((resolve, reject) => {
      client.once('message', (m: { ok: true; result: ClientResult } | { ok: false; error: string }) => {
        if (m.ok) resolve(m.result);
        else reject(new Error(m.error));
      });
      client.once('exit', (code) => {
        reject(new Error(`the bench client exited (${code ?? 'signal'})`));
      });
      const job: ClientJob = { port: hook.port, ca: hookCert.cert, bodies, concurrency, warm };
      client.send(job);
    });
  const bodies = (from: number, count: number): string[] => Array.from({ length: count }, (_, j) => reviewBody(from + j, candidate(from + j, n, c.namespaces, existing)));
  try {
    const loadBefore = load();
    // As `portico` does once its sources have listed (controller/run.ts): the cluster crosses before any review.
    const p0 = performance.now();
    await reviewer.prepare(store.snapshot());
    const prepared = performance.now() - p0;
    const first = (await ask(bodies(0, 1), 1, false)).ms[0] ?? Number.NaN;
    // CPU of this process (the server and the review worker; the clients are another process), per review: the
    // figure the machine's load does not move.
    const cpu0 = process.cpuUsage();
    const seqRun = await ask(bodies(1, reviews), 1, true);
    const cpu = process.cpuUsage(cpu0);
    const seq = seqRun.ms;
    const refused = seqRun.refused;
    const cpuPerReview = (cpu.user + cpu.system) / 1000 / (reviews + 1);
    const cpu1 = process.cpuUsage();
    const parRun = await ask(bodies(reviews + 1, reviews), concurrency, true);
    const cpuPar = process.cpuUsage(cpu1);
    const cpuPerParReview = (cpuPar.user + cpuPar.system) / 1000 / (reviews + concurrency);
    const par = parRun.ms;
    const wall = parRun.wallMs;
    // The former judgement, in-process on this thread: the whole cluster with the candidate in it.
    const whole: number[] = [];
    // Minutes a sample above 30,000 Ingresses under load: measured at the smaller sizes only.
    for (let k = 0; k < (n <= 30_000 ? 3 : 0); k += 1) {
      const cand = candidate(k + 1, n, c.namespaces, existing);
      const w0 = performance.now();
      checker.problems({ ...store.snapshot(), ingresses: [...existing, cand] });
      whole.push(performance.now() - w0);
    }
    console.log(
      `N=${n}: the cluster to the review worker and indexed ${fmt(prepared)} ms, then the first review ${fmt(first)} ms; sequential p50 ${fmt(median(seq), 1)} / p99 ${fmt(percentile(seq, 99), 1)} ms (${refused} of ${reviews} refused), CPU ${fmt(cpuPerReview, 2)} ms a review (webhook process), ${fmt(seqRun.cpuMs / reviews, 2)} ms (client); ` +
        `${concurrency} concurrent p50 ${fmt(median(par), 1)} / p99 ${fmt(percentile(par, 99), 1)} ms, ${fmt((reviews * 1000) / wall)} reviews/s, CPU ${fmt(cpuPerParReview, 2)} ms a review (webhook process; the ${concurrency} reviews opening the connections: p50 ${fmt(median(parRun.warmMs), 1)} / p99 ${fmt(percentile(parRun.warmMs, 99), 1)} ms); ` +
        `whole-cluster judgement in-process (before) median ${fmt(median(whole))} ms; RSS ${mib(process.memoryUsage().rss)} MiB; load ${loadBefore} → ${load()}`,
    );
  } finally {
    client.disconnect();
    if (client.exitCode === null) client.kill();
    await hook.close();
    await reviewer.close();
    await rm(dir, { recursive: true, force: true });
  }
}

for (const n of sizes) await bench(n);
