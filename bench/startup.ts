// bench/startup: the `portico` command as a whole process, start to exit: `--version`, `--help`, and `portico render`
// of a generated folder at 100 and 10,000 Ingresses (the scale benchmark's cluster, TLS on some), as JSON Lists and
// as the same objects in block-style YAML (one document each, as kubectl and helm write them: the fast YAML path,
// js-yaml, src/sources/yaml-documents.ts). Each command loads only what it uses (src/cli/main.ts).
// Run: npm run bench:startup [-- --rounds 5]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { clusterFiles, generate } from './scale-gen.js';
import { makeCert } from '../test/support/certs.js';
import { REPO } from '../test/support/portico.js';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1] ?? 5) || 5;
const bin = join(REPO, 'bin/portico.js');

/** Median wall time (ms) of `portico ARGS` over the rounds; fails on a non-zero exit. */
function time(args: readonly string[]): number {
  const ms: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [bin, ...args], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 });
    if (r.status !== 0) throw new Error(`portico ${args.join(' ')} exited ${String(r.status)}: ${r.stderr.toString().slice(0, 300)}`);
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return ms.sort((a, b) => a - b)[Math.floor(ms.length / 2)] ?? 0;
}

const work = mkdtempSync(join(tmpdir(), 'portico-startup-'));
try {
  const certs = [makeCert(work, 'startup.test', { sans: ['*.startup.test'] })];
  const rows: [string, number][] = [
    ['node -e 0 (Node alone)', 0],
    ['portico --version', time(['--version'])],
    ['portico --help', time(['--help'])],
  ];
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) execFileSync(process.execPath, ['-e', '0']);
  rows[0]![1] = Number(process.hrtime.bigint() - t0) / 1e6 / rounds;
  for (const n of [100, 10_000]) {
    const dir = join(work, String(n));
    const yamlDir = join(work, `${n}-yaml`);
    execFileSync('mkdir', ['-p', dir, yamlDir]);
    for (const [file, objects] of clusterFiles(generate(n, [1], certs))) {
      writeFileSync(join(dir, file), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
      writeFileSync(join(yamlDir, file.replace(/\.json$/, '.yaml')), objects.map((o) => stringify(o)).join('---\n'));
    }
    rows.push([`portico render, ${n.toLocaleString('en')} Ingresses`, time(['render', '--manifests', dir])]);
    rows.push([`portico render, ${n.toLocaleString('en')} Ingresses, YAML`, time(['render', '--manifests', yamlDir])]);
  }
  process.stdout.write(
    `bench/startup: median of ${rounds} runs each, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  for (const [what, ms] of rows) process.stdout.write(`${what.padEnd(46)} ${ms.toFixed(0).padStart(7)} ms\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
