// nginx process control (src/nginx/process.ts) with the real binary: once stopped, it stays stopped. A sync still in
// flight when Portico gets SIGTERM used to start a fresh nginx after the stop, which outlived Portico.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/log.js';
import { Nginx } from '../../src/nginx/process.js';
import { freePort } from '../support/portico.js';

let workDir: string;
let statusPort: number;

function conf(hash: string, workers = 1, traffic?: number, dir = workDir, status = statusPort): string {
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((d) => `    ${d}_temp_path ${dir}/tmp/${d};`).join('\n');
  return `pid ${dir}/nginx.pid;
error_log stderr notice;
worker_processes ${workers};
events { worker_connections 64; }
http {
${temp}
    access_log off;
    server {
        listen 127.0.0.1:${status};
        location = /portico/config-hash { return 200 "${hash}"; }
    }
${traffic === undefined ? '' : `    server { listen 127.0.0.1:${traffic}; location / { return 200 "${hash}"; } }`}
}
`;
}

function alive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

before(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'portico-process-'));
  statusPort = await freePort();
});
after(async () => {
  await rm(workDir, { recursive: true, force: true });
});

void test('after stop(), apply() refuses and starts no nginx; the stopped master is gone', async () => {
  const nginx = new Nginx({ binary: '/usr/sbin/nginx', workDir, statusPort, log: createLogger('silent') });
  await nginx.prepare(undefined, undefined);
  assert.equal(await nginx.apply(conf('one'), 'one'), 'started');
  const master = nginx.pid;
  assert.ok(alive(master), 'nginx runs');
  assert.equal(await nginx.apply(conf('two'), 'two'), 'reloaded');
  assert.equal(nginx.pid, master, 'a reload keeps the master');

  await nginx.stop();
  assert.equal(alive(master), false, 'the master exited');
  await assert.rejects(nginx.apply(conf('three'), 'three'), /nginx is stopped/);
  assert.equal(nginx.running, false);
  assert.equal(nginx.pid, undefined, 'no new nginx was spawned');
  const answer = await fetch(`http://127.0.0.1:${statusPort}/portico/config-hash`).then(
    () => 'answered',
    () => 'refused',
  );
  assert.equal(answer, 'refused', 'nothing listens on the status port any more');
});

void test('once a reload resolves, every new connection gets the new configuration (no old worker still accepts)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'portico-process-'));
  const port = await freePort();
  const status = await freePort();
  const nginx = new Nginx({ binary: '/usr/sbin/nginx', workDir: dir, statusPort: status, log: createLogger('silent') });
  try {
    await nginx.prepare(undefined, undefined);
    await nginx.apply(conf('v0', 2, port, dir, status), 'v0');
    const stale: string[] = [];
    for (let round = 1; round <= 5; round++) {
      assert.equal(await nginx.apply(conf(`v${round}`, 2, port, dir, status), `v${round}`), 'reloaded');
      // nginx's master retires the old workers 100 ms after starting the new ones: ask at once, on fresh connections
      for (let i = 0; i < 30; i++) {
        const body = await (await fetch(`http://127.0.0.1:${port}/`, { headers: { connection: 'close' } })).text();
        if (body !== `v${round}`) stale.push(`round ${round}: ${body}`);
      }
    }
    assert.deepEqual(stale, [], 'answers from the old configuration after apply() resolved');
  } finally {
    await nginx.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
