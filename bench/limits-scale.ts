// Measures 1,000 Ingresses with rate limits: `nginx -t` time and peak RSS, and the RSS of a running nginx (master +
// 1 worker), for one shared rate and for 1,000 distinct rates (docs/adr/0005). Run: node dist/bench/limits-scale.js
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selectIngresses } from '../src/annotations/select.js';
import { buildModel } from '../src/model/build.js';
import { classSelector } from '../src/model/classes.js';
import type { ModelOptions, Snapshot } from '../src/model/input.js';
import { renderNginxConf } from '../src/render/nginx-conf.js';
import { makeSelfSigned } from '../src/tls/self-signed.js';
import { ingress, ingressClass, service, slice } from '../test/support/objects.js';
import { REPO } from '../test/support/portico.js';

const P = 'nginx.ingress.kubernetes.io';
const OPTS: ModelOptions = {
  controllerClass: 'portico.dev/ingress-controller',
  ingressClass: 'portico',
  watchIngressWithoutClass: false,
  defaultBackendService: undefined,
  loadBalance: 'round_robin',
};
const N = 1000;

function conf(workDir: string, rate: (i: number) => number): string {
  const ingresses = Array.from({ length: N }, (_, i) =>
    ingress(`i${i}`, {
      host: `h${i}.scale.test`,
      className: 'portico',
      paths: [{ path: '/', type: 'Prefix', service: 'svc' }],
      annotations: { [`${P}/limit-rps`]: String(rate(i)), [`${P}/limit-rpm`]: '600', [`${P}/limit-connections`]: '10', [`${P}/limit-whitelist`]: '10.0.0.0/8' },
    }),
  );
  const snap: Snapshot = { ingresses, ingressClasses: [ingressClass('portico')], services: [service('svc')], endpointSlices: [slice('svc', 8080, ['10.0.0.1'])], secrets: [], configMaps: [] };
  const sel = selectIngresses(snap, new Map(), { prefix: P, riskLevel: 'High', allowSnippets: false, strictPaths: true, ours: classSelector(snap.ingressClasses, OPTS) });
  const model = buildModel(sel.snapshot, OPTS, sel.input);
  return renderNginxConf(model, {
    workDir,
    luaDir: join(REPO, 'lua'),
    httpPort: 28091,
    httpsPort: 28451,
    statusPort: 28257,
    defaultServerPort: 28193,
    listenAddress: '127.0.0.1',
    user: undefined,
    workerProcesses: 1,
  }).text;
}

function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0);
}

async function measure(label: string, rate: (i: number) => number): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'portico-scale-'));
  try {
    execFileSync('mkdir', ['-p', join(workDir, 'tmp'), join(workDir, 'logs')]);
    await makeSelfSigned(workDir);
    const file = join(workDir, 'nginx.conf');
    const text = conf(workDir, rate);
    writeFileSync(file, text);
    const zones = text.split('\n').filter((l) => /limit_(req|conn)_zone/.test(l)).length;
    const started = Date.now();
    const t = spawnSync('/usr/bin/time', ['-f', '%M', '/usr/sbin/nginx', '-t', '-c', file, '-p', workDir], { encoding: 'utf8' });
    const testMs = Date.now() - started;
    const peak = Number(t.stderr.trim().split('\n').at(-1));
    if (t.status !== 0) throw new Error(t.stderr);
    // The daemon keeps inherited pipes open: no pipes, or this call would wait for it to exit.
    execFileSync('/usr/sbin/nginx', ['-c', file, '-p', workDir], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 1500));
    const master = Number(readFileSync(join(workDir, 'nginx.pid'), 'utf8').trim());
    const children = readFileSync(`/proc/${master}/task/${master}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number);
    const running = [master, ...children].reduce((s, p) => s + rssKiB(p), 0);
    process.kill(master, 'SIGQUIT');
    process.stdout.write(
      `${label}: ${zones} zones, ${(text.length / 1024).toFixed(0)} KiB conf, nginx -t ${testMs} ms, peak RSS of nginx -t ${(peak / 1024).toFixed(0)} MiB, running master+${children.length} worker RSS ${(running / 1024).toFixed(0)} MiB\n`,
    );
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

await measure('1,000 Ingresses, one shared rate (10 r/s)', () => 10);
await measure('1,000 Ingresses, 1,000 distinct rates', (i) => i + 1);
await measure('1,000 Ingresses, limit-rpm and limit-connections only', () => 0);
