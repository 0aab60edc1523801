// Where one change's time goes at N Ingresses: the real `portico --manifests` under `node --cpu-prof`, a new Ingress,
// a removed path and a rotated certificate applied after the first sync has settled, and the CPU profile of each
// change's burst printed by function (self time, main thread and build worker apart).
//
//   node dist/bench/change-profile.js [N=10000] [--top 25] [--keep DIR]
//
// The bursts are told apart by time: the driver waits for each sync's log line and then 2 s of quiet before the
// next change, and each profile sample is placed on the log's clock by the profile's own start (process start).
// --keep DIR: the .cpuprofile files stay there (open them in Chrome DevTools); otherwise they are removed.
import { mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert } from '../test/support/certs.js';
import { tlsSecret } from '../test/support/tls-manifests.js';
import { startPortico } from '../test/support/portico.js';
import { clusterFiles, generate, makeApp, namespaceObjects } from './scale-gen.js';
import { pollMs } from './scale-probe.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const argv = process.argv.slice(2);
const n = Number(argv.find((a) => /^\d+$/.test(a)) ?? 10_000);
const top = Number(argv.includes('--top') ? argv[argv.indexOf('--top') + 1] : 25);
/** --timeline: also each change's busy time in 25 ms bins from the write (the critical path, thread by thread). */
const timeline = argv.includes('--timeline');
const keep = argv.includes('--keep') ? argv[argv.indexOf('--keep') + 1] : undefined;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function writeJson(dir: string, file: string, objects: unknown[]): Promise<void> {
  await writeFile(join(dir, `.${file}.tmp`), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
  await rename(join(dir, `.${file}.tmp`), join(dir, file));
}

const dir = await mkdtemp(join(tmpdir(), 'portico-change-profile-'));
const profDir = keep ?? (await mkdtemp(join(tmpdir(), 'portico-change-prof-')));
try {
  const certs = [0, 1, 2, 3].map(() => makeCert(dir, '*.scale.test', { sans: ['*.scale.test'] }));
  const c = generate(n, [], certs);
  for (const [file, objects] of clusterFiles(c)) await writeJson(dir, file, objects);
  const p = await startPortico(['--manifests', dir, '--worker-processes', '1'], { waitHealthy: false, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profDir}`] });
  const syncs = (): string[] => p.output.filter((l) => l.includes('"msg":"sync"') && !l.includes('"head":') && l.includes('"plan":"'));
  const untilSyncs = async (k: number): Promise<string> => {
    await pollMs(() => Promise.resolve(syncs().length >= k || p.proc.exitCode !== null), 600_000, 20);
    return syncs()[k - 1] ?? '';
  };
  const windows: { what: string; from: number; to: number; line: string }[] = [];
  const change = async (what: string, act: () => Promise<void>): Promise<void> => {
    await sleep(2000);
    const k = syncs().length + 1;
    const from = Date.now();
    await act();
    const line = await untilSyncs(k);
    windows.push({ what, from, to: Date.parse(/"time":"([^"]+)"/.exec(line)?.[1] ?? '') + 5, line });
  };
  const startedAt = Date.now();
  if ((await untilSyncs(1)) === '') throw new Error(`no sync logged:\n${p.output.slice(-10).join('\n')}`);
  const fresh = makeApp(n + 1, { namespaces: c.namespaces, probeEvery: 1, probePorts: [], certs }, () => 0);
  await change('new Ingress', () => writeJson(dir, 'new.json', namespaceObjects([fresh])));
  const multi = c.apps.find((a) => a.paths.length >= 2 && a.index !== 0) ?? c.apps[1]!;
  const cut = {
    ...multi,
    ingress: { ...multi.ingress, spec: { ...multi.ingress.spec, rules: multi.ingress.spec?.rules?.map((r) => ({ ...r, http: { paths: (r.http?.paths ?? []).filter((x) => x.path !== '/') } })) } },
  };
  await change('path removed', async () => {
    const apps = c.apps.map((a) => (a.index === multi.index ? cut : a)).filter((a) => a.namespace === multi.namespace);
    await writeJson(dir, `${multi.namespace}.json`, namespaceObjects(apps));
  });
  // one Secret rotated: the first app has spec.tls (scale-gen: every 10th)
  const tlsApp = c.apps[0]!;
  const rotated = makeCert(dir, '*.scale.test', { sans: ['*.scale.test'] });
  await change('certificate', async () => {
    const apps = c.apps
      .filter((a) => a.namespace === tlsApp.namespace)
      .map((a) => (a.index === tlsApp.index ? { ...a, secret: tlsSecret(a.secret?.metadata?.name ?? '', rotated, a.namespace) } : a.index === multi.index ? cut : a));
    await writeJson(dir, `${tlsApp.namespace}.json`, namespaceObjects(apps));
  });
  await sleep(500);
  await p.stop();
  const files = (await readdir(profDir)).filter((f) => f.endsWith('.cpuprofile'));
  console.log(`N=${n}, load ${loadavg()[0]!.toFixed(1)}; profiles: ${files.join(', ')}`);
  for (const w of windows) {
    console.log(`\n## ${w.what}: ${w.to - w.from} ms from the write to the sync line; ${/"ms":\d+/.exec(w.line)?.[0] ?? ''}`);
    const profiles = await Promise.all(files.map(async (f) => [f, JSON.parse(await readFile(join(profDir, f), 'utf8')) as Profile] as const));
    // V8's profile clock is monotonic microseconds, one clock for every thread of the process; the main thread's
    // profile starts first, about when the driver spawned the process
    const base = startedAt * 1000 - Math.min(...profiles.map(([, prof]) => prof.startTime));
    for (const [f, prof] of profiles) {
      const self = new Map<number, number>();
      const names = new Map(prof.nodes.map((nd) => [nd.id, nd.callFrame.functionName || '(anon)'] as const));
      // a timeline from the write: 25 ms bins, the busy ms in each and the function most sampled there
      const bins = new Map<number, Map<string, number>>();
      let t = prof.startTime;
      let total = 0;
      prof.samples.forEach((id, i) => {
        t += prof.timeDeltas[i] ?? 0;
        const wall = (t + base) / 1000;
        if (wall < w.from - 500 || wall > w.to + 500) return; // the driver waits 2 s of quiet around each change
        self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0));
        const name = names.get(id) ?? '?';
        if (name !== '(idle)') {
          const bin = Math.floor((wall - w.from) / 25);
          const m = bins.get(bin) ?? new Map<string, number>();
          m.set(name, (m.get(name) ?? 0) + (prof.timeDeltas[i] ?? 0));
          bins.set(bin, m);
        }
        total += prof.timeDeltas[i] ?? 0;
      });
      const byName = new Map<string, number>();
      for (const node of prof.nodes) {
        const us = self.get(node.id);
        if (us === undefined) continue;
        const cf = node.callFrame;
        const key = `${cf.functionName || '(anon)'} ${cf.url.replace(/^.*\/(dist|node_modules)\//, '$1/')}:${cf.lineNumber + 1}`;
        byName.set(key, (byName.get(key) ?? 0) + us);
      }
      const rows = [...byName].filter(([k]) => !k.startsWith('(idle)')).sort((a, b) => b[1] - a[1]);
      const busy = rows.reduce((s, [, us]) => s + us, 0);
      console.log(`### ${f}: ${(busy / 1000).toFixed(0)} ms busy of ${(total / 1000).toFixed(0)} ms sampled`);
      for (const [k, us] of rows.slice(0, top)) console.log(`${(us / 1000).toFixed(1).padStart(8)} ms  ${k}`);
      if (timeline) {
        for (const [bin, m] of [...bins].sort((a, b) => a[0] - b[0])) {
          const busyUs = [...m.values()].reduce((a, b) => a + b, 0);
          const lead = [...m]
            .sort((a, b) => b[1] - a[1])
            .slice(0, 3)
            .map(([k, us]) => `${k} ${(us / 1000).toFixed(0)}`);
          console.log(`  +${String(bin * 25).padStart(5)} ms  busy ${(busyUs / 1000).toFixed(0).padStart(3)}  ${lead.join(', ')}`);
        }
      }
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
  if (keep === undefined) await rm(profDir, { recursive: true, force: true });
}
