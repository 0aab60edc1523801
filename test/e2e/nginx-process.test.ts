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

function conf(hash: string): string {
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((d) => `    ${d}_temp_path ${workDir}/tmp/${d};`).join('\n');
  return `pid ${workDir}/nginx.pid;
error_log stderr notice;
worker_processes 1;
events { worker_connections 64; }
http {
${temp}
    access_log off;
    server {
        listen 127.0.0.1:${statusPort};
        location = /portico/config-hash { return 200 "${hash}"; }
    }
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
