// ingress-nginx e2e settings/proxy_connect_timeout.go: the ConfigMap's proxy-connect-timeout bounds the TCP handshake
// with a backend (504 when it expires), and an invalid value is refused, the default (5 s) kept. The backend here never
// completes a handshake; no time is measured: each 504 is ordered against an answer the echo backend gives after 3 s.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { service, slice } from '../../support/objects.js';
import { until, type Reply } from '../../support/portico.js';
import { ing, startSuite, type Suite } from '../harness.js';

// Listens with a backlog of 1, prints its port, then blocks its event loop for good: it never accepts a connection.
const NEVER_ACCEPTS = `const s = require('net').createServer();
s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
  process.stdout.write(s.address().port + '\\n');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
});`;

/** True when `sock` connects within 500 ms. */
function connects(sock: Socket): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      resolve(false);
    }, 500);
    sock.once('connect', () => {
      clearTimeout(timer);
      resolve(true);
    });
    sock.once('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}

/**
 * A port on 127.0.0.1 whose TCP handshake never completes: a child process listens and never accepts, and its accept
 * queue is filled here, so the kernel drops every further SYN (as a backend behind a full or lost network would).
 */
async function neverConnects(): Promise<{ port: number; stop: () => void }> {
  const child: ChildProcess = spawn(process.execPath, ['-e', NEVER_ACCEPTS], { stdio: ['ignore', 'pipe', 'inherit'] });
  const held: Socket[] = [];
  const stop = () => {
    for (const h of held) h.destroy();
    child.kill('SIGKILL');
  };
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  try {
    await until('the listener to print its port', () => out.includes('\n'), 10_000);
    const port = Number(out.trim());
    // Connect until one connection stays pending (the queue is full); the queue holds two with a backlog of 1.
    for (let i = 0; i < 8; i += 1) {
      const sock = connect(port, '127.0.0.1');
      sock.on('error', () => undefined);
      held.push(sock);
      if (!(await connects(sock))) return { port, stop };
    }
    throw new Error('the accept queue never filled');
  } catch (err) {
    stop();
    throw err;
  }
}

void describe('settings/proxy_connect_timeout.go', () => {
  let s: Suite;
  let hole: { port: number; stop: () => void };
  const host = 'proxy-connect-timeout.com';
  const reference = 'reference.proxy-connect-timeout.com';
  before(async () => {
    hole = await neverConnects();
    s = await startSuite();
    const objects = [service('hole'), slice('hole', hole.port, ['127.0.0.1']), ing(host, host, { service: 'hole' }), ing(reference, reference)];
    await s.put('ingresses.json', objects, async () => (await s.get(reference, '/')).status === 200);
  });
  after(async () => {
    await s.stop();
    hole.stop();
  });

  // server-tokens marks which ConfigMap is served: with it, the Server header names nginx's version; without, none.
  const versioned = async () => /^nginx\/\d/.test(String((await s.get(reference, '/')).headers['server']));
  const unversioned = async () => (await s.get(reference, '/')).headers['server'] === undefined;

  /** Asks `host` (its backend never connects) and `reference` for an answer after 3 s at once: both replies, in the order they came. */
  const race = async (): Promise<{ first: string; hole: Reply; ref: Reply }> => {
    const order: string[] = [];
    const [h, r] = await Promise.all([
      s.get(host, '/', { timeoutMs: 20_000 }).then((x) => (order.push('hole'), x)),
      s.get(reference, '/sleep/3', { timeoutMs: 20_000 }).then((x) => (order.push('reference'), x)),
    ]);
    return { first: order[0] ?? '', hole: h, ref: r };
  };

  test('should set valid proxy timeouts using configmap values', async () => {
    // "1": the handshake is given up after 1 s, so the 504 comes before the 3 s answer (with the default 5 s, after it).
    await s.config({ 'proxy-connect-timeout': '1', 'server-tokens': 'true' }, versioned);
    const r = await race();
    assert.equal(r.hole.status, 504);
    assert.equal(r.ref.status, 200);
    assert.equal(r.first, 'hole');
  });

  test('should not set invalid proxy timeouts using configmap values', async () => {
    // Back to the default first: Portico keeps a key's previous good value when a new one is bad (docs/configmap.md).
    await s.config({}, unversioned);
    // "50k" is no time: refused with a Warning naming the key, and the default (5 s) stays: the 504 comes after 3 s.
    await s.config({ 'proxy-connect-timeout': '50k', 'server-tokens': 'true' }, versioned);
    assert.ok(s.portico.output.some((l) => l.includes('proxy-connect-timeout') && l.includes('50k') && l.includes('is not a number of seconds')));
    const r = await race();
    assert.equal(r.hole.status, 504);
    assert.equal(r.ref.status, 200);
    assert.equal(r.first, 'reference');
  });
});
