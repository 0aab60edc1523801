// No orphans, through the real command: `npx portico … & kill $!` (SIGTERM to the npx process, the
// PID a user has) stops Portico and its nginx, and Portico killed with SIGKILL takes its nginx with it; afterwards
// no process of the run is alive and its ports are free again.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backendObjects, manifestDir, writeManifests } from '../support/manifests.js';
import { freePort, get, REPO, startPortico, until } from '../support/portico.js';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** True when 127.0.0.1:port can be bound now (nginx's listeners on *:port would refuse it). */
async function free(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => {
      resolve(false);
    });
    server.listen(port, '127.0.0.1', () => {
      server.close(() => {
        resolve(true);
      });
    });
  });
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

/** The nginx master of a run (its work dir's pid file) and its parent, Portico. */
async function masterAndPortico(workDir: string): Promise<{ master: number; portico: number }> {
  const master = Number((await readFile(join(workDir, 'nginx.pid'), 'utf8')).trim());
  const stat = await readFile(`/proc/${master}/stat`, 'utf8');
  const portico = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  return { master, portico };
}

/** SIGKILL by PID to whatever a run left (nginx's group included), for the after hooks. */
async function reap(pids: readonly number[], workDir: string): Promise<void> {
  for (const pid of [...pids, ...(await processesOf(workDir))]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}

describe('no orphans', () => {
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const c of cleanups) await c();
  });

  test('npx portico, then SIGTERM to the npx PID: Portico and nginx stop, and the ports are free', async () => {
    const dir = await manifestDir();
    const workDir = await mkdtemp(join(tmpdir(), 'portico-npx-'));
    await writeManifests(dir, 'all.yaml', backendObjects('web', 9));
    const [http, https, healthz, status, dflt] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
    const flags = ['--manifests', dir, '--http-port', String(http), '--https-port', String(https), '--healthz-port', String(healthz)];
    flags.push('--status-port', String(status), '--default-server-port', String(dflt), '--work-dir', workDir);
    // As a user types it in the repository; npm's notices off (no registry is asked: `portico` is this package).
    const npx = spawn('npx', ['--yes', 'portico', ...flags], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' },
    });
    const output: string[] = [];
    npx.stdout.on('data', (c: Buffer) => output.push(c.toString('utf8')));
    npx.stderr.on('data', (c: Buffer) => output.push(c.toString('utf8')));
    const pids: number[] = [npx.pid ?? 0];
    cleanups.push(async () => {
      await reap(pids, workDir);
      await rm(dir, { recursive: true, force: true });
      await rm(workDir, { recursive: true, force: true });
    });
    await until('portico /healthz through npx', async () => (await get(healthz, 'localhost', '/healthz')).status === 200, 60_000, 200).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${output.join('').slice(-2000)}`);
    });
    const { master, portico } = await masterAndPortico(workDir);
    pids.push(portico, master);
    assert.notEqual(portico, npx.pid, 'npx runs Portico as a process of its own (under sh -c)');
    assert.match(await readFile(`/proc/${portico}/cmdline`, 'utf8'), /portico/);

    const npxExit = new Promise((resolve) => npx.once('exit', resolve));
    process.kill(npx.pid ?? 0, 'SIGTERM');
    await npxExit;
    await until('Portico and nginx gone', () => !alive(portico) && !alive(master), 20_000, 100).catch((err: unknown) => {
      throw new Error(`${String(err)}: portico ${alive(portico) ? 'alive' : 'gone'}, nginx ${alive(master) ? 'alive' : 'gone'}\n${output.join('').slice(-1500)}`);
    });
    await until('no process of the run left', async () => (await processesOf(workDir)).length === 0, 10_000, 100);
    for (const port of [http, https, healthz, status, dflt]) assert.ok(await free(port), `port ${port} is free again`);
    assert.ok(output.join('').includes('"msg":"stopped"'), 'Portico stopped in order (nginx quit, then "stopped")');
  });

  test('Portico killed with SIGKILL: its nginx master and workers quit, and the ports are free', async () => {
    const dir = await manifestDir();
    await writeManifests(dir, 'all.yaml', backendObjects('web', 9));
    const p = await startPortico(['--manifests', dir]);
    const { master, portico } = await masterAndPortico(p.workDir);
    assert.equal(portico, p.proc.pid);
    const workers = (await readFile(`/proc/${master}/task/${master}/children`, 'utf8')).split(/\s+/).filter(Boolean).map(Number);
    assert.ok(workers.length > 0);
    cleanups.push(async () => {
      await reap([master, ...workers], p.workDir);
      await p.stop();
      await rm(dir, { recursive: true, force: true });
    });
    process.kill(portico, 'SIGKILL');
    await until('nginx master and workers gone', () => ![master, ...workers].some(alive), 20_000, 100);
    for (const port of [p.http, p.https, p.status]) assert.ok(await free(port), `port ${port} is free again`);
  });
});
