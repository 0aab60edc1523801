// docs/migration.md's walkthrough, run as written: every `$ command` of its console blocks runs in order through bash
// (the real portico command, real nginx, curl and jq) on a copy of test/fixtures/walkthrough, and its output must be
// the one the doc shows. The doc's ports and paths are mapped to free ports and temporary folders here, and back in
// the output. `cmd &` starts a background process (its PID for `kill $!`, or `& NAME=$!` for `kill $NAME`); every
// process started is stopped by its PID. UPDATE_FIXTURES=1 writes the outputs into the doc instead.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { consoleSteps, withOutputs } from '../support/console-doc.js';
import { REPO, freePort, get, until } from '../support/portico.js';

const DOC = join(REPO, 'docs/migration.md');
const HEADING = '## Walkthrough';
const FOLDER = 'test/fixtures/walkthrough';
const WORK = '/tmp/portico-walkthrough';
/** The ports the doc names: traffic, health, status, the TCP service, the demo backends. */
const DOC_PORTS = [8080, 8443, 10254, 10246, 15432, 18081, 18082, 18083, 18084, 18085, 18086, 18087, 18088];

const running = new Map<string, ChildProcess>();
const dirs: string[] = [];

after(async () => {
  for (const p of running.values()) await stop(p);
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** SIGTERM to the PID, at most 20 s to exit, then SIGKILL. */
async function stop(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => {
    p.once('exit', () => {
      resolve();
    });
  });
  p.kill('SIGTERM');
  const timer = setTimeout(() => p.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

interface Mapping {
  to(text: string): string;
  back(text: string): string;
  port(doc: number): number;
}

/** Doc ports → free ports, doc paths → this run's folders; and back for outputs. */
async function mapping(folder: string, work: string): Promise<Mapping> {
  const ports = new Map<string, string>();
  for (const p of DOC_PORTS) ports.set(String(p), String(await freePort()));
  const reverse = new Map([...ports].map(([a, b]) => [b, a]));
  const paths: [string, string][] = [
    [FOLDER, folder],
    [WORK, work],
    ['bin/portico.js', join(REPO, 'bin/portico.js')],
    ['dist/test/support/', join(REPO, 'dist/test/support/')],
  ];
  const swap = (text: string, pairs: readonly (readonly [string, string])[], map: ReadonlyMap<string, string>): string =>
    pairs.reduce((t, [a, b]) => t.split(a).join(b), text).replace(/\b\d{4,5}\b/g, (n) => map.get(n) ?? n);
  return {
    to: (t) => swap(t, paths, ports),
    back: (t) =>
      swap(
        t,
        paths.map(([a, b]) => [b, a] as const),
        reverse,
      ),
    port: (doc) => Number(ports.get(String(doc))),
  };
}

/** A foreground command through bash, stdout and stderr together, at most 60 s. */
function foreground(command: string, cwd: string): Promise<string> {
  return new Promise((resolve) => {
    const p = spawn('bash', ['-c', `${command} 2>&1`], { cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    p.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
    p.on('close', () => {
      resolve(out);
    });
  });
}

/** A background command (`exec`, so its PID is the program's); resolves with what it printed once it is ready. */
async function background(command: string, cwd: string, m: Mapping): Promise<{ proc: ChildProcess; out: string }> {
  const proc = spawn('bash', ['-c', `exec ${command}`], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  proc.stderr?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  if (command.includes('--healthz-port')) {
    const port = m.port(10254);
    await until('portico /healthz', async () => proc.exitCode === null && (await get(port, 'localhost', '/healthz').catch(() => ({ status: 0 }))).status === 200, 30_000);
  } else {
    await until('its first line', () => out.includes('\n') || proc.exitCode !== null, 15_000);
  }
  return { proc, out };
}

const lines = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l, i, all) => l !== '' || i < all.length - 1);

/** The doc's commands use curl and jq as an operator would; without them the walkthrough cannot be run as written. */
const missing = ['curl', 'jq'].filter((tool) => spawnSync('bash', ['-c', `command -v ${tool}`]).status !== 0);

void test("docs/migration.md's walkthrough: every command gives the output shown", { timeout: 240_000, skip: missing.length > 0 ? `not installed: ${missing.join(', ')}` : false }, async () => {
  const doc = await readFile(DOC, 'utf8');
  const steps = consoleSteps(doc, HEADING);
  assert.ok(steps.length >= 15, `the walkthrough's commands (${steps.length})`);
  const cwd = await mkdtemp(join(tmpdir(), 'portico-wt-cwd-'));
  const folder = await mkdtemp(join(tmpdir(), 'portico-wt-folder-'));
  const work = await mkdtemp(join(tmpdir(), 'portico-wt-work-'));
  dirs.push(cwd, folder, work);
  const m = await mapping(folder, work);
  await cp(join(REPO, FOLDER), folder, { recursive: true });
  for (const f of await readdir(folder)) await writeFile(join(folder, f), m.to(await readFile(join(folder, f), 'utf8')));
  const outputs: string[][] = [];
  let last: ChildProcess | undefined;
  for (const step of steps) {
    const bg = /^(.*\S)\s+&(?:\s+([A-Z_]+)=\$!)?$/.exec(step.command);
    const kill = /^kill \$(!|[A-Z_]+)$/.exec(step.command);
    let out = '';
    if (bg?.[1]) {
      const r = await background(m.to(bg[1]), cwd, m);
      last = r.proc;
      running.set(bg[2] ?? `pid-${String(r.proc.pid)}`, r.proc);
      out = r.out;
    } else if (kill?.[1]) {
      const p = kill[1] === '!' ? last : running.get(kill[1]);
      assert.ok(p, `${step.command}: a process to stop`);
      await stop(p);
    } else {
      out = await foreground(m.to(step.command), cwd);
    }
    outputs.push(lines(m.back(out)));
  }
  if (process.env['UPDATE_FIXTURES'] === '1') {
    await writeFile(DOC, withOutputs(doc, HEADING, outputs));
    return;
  }
  steps.forEach((s, i) => {
    assert.deepEqual(outputs[i], [...s.output], `the output of $ ${s.command}`);
  });
});
