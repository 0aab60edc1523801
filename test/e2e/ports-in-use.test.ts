// Ports already in use, through the real command: a port held by the test makes `portico` exit at
// start with status 1 and a fatal line naming the port and its flag, leaving no process behind. A port only nginx
// finds busy (a tcp-services port) ends the same way, with nginx's [emerg] lines at error level and no restart loop.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtemp } from 'node:fs/promises';
import { backendObjects, configMap, manifestDir, writeManifests } from '../support/manifests.js';
import { freePort, REPO } from '../support/portico.js';

interface Ports {
  readonly http: number;
  readonly https: number;
  readonly healthz: number;
  readonly status: number;
  readonly defaultServer: number;
}

interface Run {
  readonly proc: ChildProcess;
  readonly workDir: string;
  readonly output: string[];
  /** Exit status, or 'timeout' after 30 s. */
  readonly exit: Promise<number | null | 'timeout'>;
}

const started: Run[] = [];
const held: Server[] = [];
const dirs: string[] = [];

async function ports(): Promise<Ports> {
  return { http: await freePort(), https: await freePort(), healthz: await freePort(), status: await freePort(), defaultServer: await freePort() };
}

/** A listener of the test's own on 127.0.0.1:port. */
async function hold(port: number): Promise<void> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  held.push(server);
}

/** Every process whose command line names `workDir`: Portico itself and its nginx master and workers. */
async function processesOf(workDir: string): Promise<number[]> {
  const found: number[] = [];
  for (const d of await readdir('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const cmd = await readFile(`/proc/${d}/cmdline`, 'utf8').catch(() => '');
    if (cmd.includes(workDir)) found.push(Number(d));
  }
  return found;
}

/** `node bin/portico.js` on `dir` with the given ports; its output collected line by line. */
async function runPortico(dir: string, p: Ports, extra: string[] = []): Promise<Run> {
  const workDir = await mkdtemp(join(tmpdir(), 'portico-ports-'));
  dirs.push(workDir);
  const args = [join(REPO, 'bin/portico.js'), '--manifests', dir, ...extra, '--http-port', String(p.http), '--https-port', String(p.https)];
  args.push('--healthz-port', String(p.healthz), '--status-port', String(p.status), '--default-server-port', String(p.defaultServer), '--work-dir', workDir);
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  for (const stream of [proc.stdout, proc.stderr]) {
    let rest = '';
    stream?.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      output.push(...lines.filter((l) => l !== ''));
    });
  }
  const exit = new Promise<number | null | 'timeout'>((resolve) => {
    const timer = setTimeout(() => {
      resolve('timeout');
    }, 30_000);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
  const run = { proc, workDir, output, exit };
  started.push(run);
  return run;
}

/** Exit status 1 on its own, the fatal line names `port` and `flag`, nothing of it left running. */
async function assertRefused(run: Run, port: number, flag: string): Promise<string> {
  assert.equal(await run.exit, 1, `portico exits with status 1 on its own:\n${run.output.slice(-10).join('\n')}`);
  const fatal = run.output.filter((l) => l.includes('"level":60'));
  assert.equal(fatal.length, 1, run.output.slice(-10).join('\n'));
  assert.ok(fatal[0]?.includes(`port ${port} (${flag})`), fatal[0]);
  assert.ok(fatal[0]?.includes('already in use'), fatal[0]);
  assert.deepEqual(await processesOf(run.workDir), [], 'neither Portico nor any nginx is left');
  assert.ok(!run.output.some((l) => l.includes('keeps serving')), 'no claim that anything serves');
  return fatal[0] ?? '';
}

describe('ports already in use', () => {
  after(async () => {
    for (const r of started) {
      if (r.proc.exitCode === null && r.proc.signalCode === null) r.proc.kill('SIGKILL');
      for (const pid of await processesOf(r.workDir)) process.kill(pid, 'SIGKILL');
    }
    for (const s of held) s.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  const plain = async (): Promise<string> => {
    const dir = await manifestDir();
    dirs.push(dir);
    await writeManifests(dir, 'all.yaml', backendObjects('web', 9));
    return dir;
  };

  for (const [flag, key] of [
    ['--healthz-port', 'healthz'],
    ['--http-port', 'http'],
    ['--status-port', 'status'],
  ] as const) {
    test(`${flag} held by another process: exit 1 at start, naming the port and the flag`, async () => {
      const p = await ports();
      await hold(p[key]);
      const run = await runPortico(await plain(), p);
      await assertRefused(run, p[key], flag);
      assert.ok(!run.output.some((l) => l.includes('"msg":"nginx"')), 'nginx was never started');
    });
  }

  test('a tcp-services port only nginx finds busy: exit 1, the [emerg] lines at error level, no restart', async () => {
    const p = await ports();
    const busy = await freePort();
    await hold(busy);
    const dir = await plain();
    await writeManifests(dir, 'cm.yaml', [configMap('tcp', { [String(busy)]: 'default/web:80' }, 'ingress')]);
    const run = await runPortico(dir, p, ['--tcp-services-configmap', 'ingress/tcp']);
    const fatal = await assertRefused(run, busy, 'a tcp/udp-services ConfigMap key');
    assert.ok(fatal.includes(`bind() to 0.0.0.0:${busy} failed (98: Address already in use)`), fatal);
    const emerg = run.output.filter((l) => l.includes('[emerg]'));
    assert.ok(emerg.length > 0, 'nginx said why');
    assert.deepEqual(
      emerg.filter((l) => !l.includes('"level":50')),
      [],
      "nginx's [emerg] lines are logged at error level",
    );
    assert.ok(!run.output.some((l) => l.includes('restarting it')), 'a start that never served is not retried');
  });
});
