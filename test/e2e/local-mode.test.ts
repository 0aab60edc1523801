// End to end, local mode: proxy headers, WebSocket, folder changes, bad input, render, and a clean stop.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import WebSocket from 'ws';
import { startBackend, type Backend, type Echo } from '../support/backends.js';
import { ingress, ingressClass } from '../support/objects.js';
import { manifestDir, serviceFor, writeManifests } from '../support/manifests.js';
import { REPO, get, startPortico, syncCount, until, who, type Running } from '../support/portico.js';

const run = promisify(execFile);

describe('local mode', () => {
  let backends: Backend[] = [];
  let dir = '';
  let portico: Running;

  before(async () => {
    backends = await Promise.all(['one', 'two', 'three'].map((id) => startBackend(id)));
    dir = await manifestDir();
    await writeManifests(dir, 'base.yaml', [ingressClass('portico'), ...serviceFor('one', [backends[0]!]), ...serviceFor('two', [backends[1]!]), ...serviceFor('three', [backends[2]!])]);
    await writeManifests(dir, 'app.yaml', [ingress('app', { className: 'portico', host: 'app.test', paths: [{ path: '/', type: 'Prefix', service: 'one' }] })]);
    portico = await startPortico(['--manifests', dir]);
  });

  after(async () => {
    const code = await portico?.stop();
    assert.equal(code, 0, 'SIGTERM stops Portico with exit code 0');
    await Promise.all(backends.map((b) => b.close()));
    await rm(dir, { recursive: true, force: true });
  });

  test('the backend receives the Host and the forwarded headers ingress-nginx sets', async () => {
    const r = await get(portico.http, 'app.test:8080', '/hello?x=1', { headers: { 'user-agent': 'e2e' } });
    assert.equal(r.status, 200);
    const echo = JSON.parse(r.body) as Echo;
    assert.equal(echo.url, '/hello?x=1');
    assert.equal(echo.headers['host'], 'app.test:8080');
    assert.equal(echo.headers['x-forwarded-for'], '127.0.0.1');
    assert.equal(echo.headers['x-real-ip'], '127.0.0.1');
    assert.equal(echo.headers['x-forwarded-proto'], 'http');
    assert.equal(echo.headers['x-forwarded-host'], 'app.test:8080');
    assert.equal(echo.headers['x-forwarded-port'], String(portico.http));
    assert.match(String(echo.headers['x-request-id']), /^[0-9a-f]{32}$/);
    const mine = await get(portico.http, 'app.test', '/', { headers: { 'x-request-id': 'abc-123' } });
    assert.equal((JSON.parse(mine.body) as Echo).headers['x-request-id'], 'abc-123', 'a client X-Request-ID is kept');
  });

  test('WebSocket upgrades pass through', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${portico.http}/ws`, { headers: { host: 'app.test' } });
    const reply = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error('no WebSocket echo within 5 s'));
      }, 5000);
      ws.on('open', () => {
        ws.send('ping');
      });
      ws.on('message', (data) => {
        clearTimeout(timer);
        resolve(String(data));
      });
      ws.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    ws.close();
    assert.equal(reply, 'one:ping');
  });

  test('a file added, edited (renamed into place), written in place and removed takes effect within a second', async () => {
    await writeManifests(dir, 'added.yaml', [ingress('added', { className: 'portico', host: 'added.test', paths: [{ path: '/', type: 'Prefix', service: 'two' }] })]);
    const addMs = await until('added.test served', async () => (await who(portico.http, 'added.test', '/')) === 'two', 1000);
    await writeManifests(dir, 'added.yaml', [ingress('added', { className: 'portico', host: 'added.test', paths: [{ path: '/', type: 'Prefix', service: 'three' }] })]);
    const editMs = await until('added.test edited', async () => (await who(portico.http, 'added.test', '/')) === 'three', 1000);
    const inPlace = ingress('added', { className: 'portico', host: 'added.test', paths: [{ path: '/', type: 'Prefix', service: 'one' }] });
    await writeFile(join(dir, 'added.yaml'), JSON.stringify(inPlace));
    const inPlaceMs = await until('added.test written in place', async () => (await who(portico.http, 'added.test', '/')) === 'one', 1000);
    await unlink(join(dir, 'added.yaml'));
    const delMs = await until('added.test removed', async () => (await who(portico.http, 'added.test', '/')) === '404', 1000);
    process.stdout.write(`# folder change applied in: add ${addMs} ms, rename ${editMs} ms, in place ${inPlaceMs} ms, delete ${delMs} ms\n`);
  });

  test('a broken file is named with its line, and everything else keeps being served', async () => {
    await writeFile(join(dir, 'broken.yaml'), 'apiVersion: v1\nkind: Service\nmetadata:\n  name: [unclosed\n');
    await writeFile(join(dir, 'bad-object.yaml'), 'apiVersion: networking.k8s.io/v1\nkind: Ingress\nspec: {}\n');
    await writeFile(
      join(dir, 'hostile.yaml'),
      JSON.stringify(ingress('hostile', { className: 'portico', host: 'evil.test";\n}', paths: [{ path: '/x;\ninclude /etc/passwd;', type: 'Prefix', service: 'one' }] })),
    );
    await until(
      'the errors are logged',
      () => portico.output.some((l) => /broken\.yaml:\d+:\d+: BAD_INDENT/.test(l)) && portico.output.some((l) => l.includes('bad-object.yaml:1') && l.includes('metadata.name')),
      2000,
    );
    await until('the hostile Ingress is refused', () => portico.output.some((l) => l.includes('Ingress default/hostile') && l.includes('spec.rules[0].host')), 2000);
    assert.equal(await who(portico.http, 'app.test', '/'), 'one');
    const conf = await (await fetch(`http://127.0.0.1:${portico.healthz}/debug/config`)).text();
    assert.ok(!conf.includes('evil.test') && !conf.includes('/etc/passwd'), 'nothing of the hostile Ingress reaches nginx.conf');
    await Promise.all(['broken.yaml', 'bad-object.yaml', 'hostile.yaml'].map((f) => unlink(join(dir, f))));
  });

  test('an unchanged folder causes no reload', async () => {
    const before = syncCount(portico.output, 'reload');
    await writeManifests(dir, 'app.yaml', [ingress('app', { className: 'portico', host: 'app.test', paths: [{ path: '/', type: 'Prefix', service: 'one' }] })]);
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(syncCount(portico.output, 'reload'), before);
  });

  test('`portico render` prints the nginx.conf, then the route table, without starting anything', async () => {
    const render = async (...flags: string[]): Promise<string> => (await run(process.execPath, [join(REPO, 'bin/portico.js'), 'render', '--manifests', dir, ...flags], { timeout: 20_000 })).stdout;
    // dynamic routes (the default): app.test is a row of the route table, printed as comments after nginx.conf
    const routed = await render();
    assert.doesNotMatch(routed, /server_name "app\.test";/);
    assert.match(routed, /^# app\.test +prefix +\/ +default\/app +default_one_80 +proxy$/m);
    const rendered = await render('--enable-dynamic-routes=false');
    assert.match(rendered, /server_name "app\.test";/);
    assert.match(rendered, /set \$portico_backend "default_one_80";/);
    assert.doesNotMatch(rendered, /# Route table/);
    // a reader that closes the pipe before reading (`portico render | head -0`): a quiet exit 0, no EPIPE stack trace
    const child = spawn(process.execPath, [join(REPO, 'bin/portico.js'), 'render', '--manifests', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const stop = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearTimeout(stop);
    assert.equal(code, 0);
    assert.equal(stderr, '');
  });

  test('a second instance runs side by side on other ports, without root-only ports', async () => {
    const second = await startPortico(['--manifests', dir]);
    try {
      assert.equal(await who(second.http, 'app.test', '/'), 'one');
      assert.equal(await who(portico.http, 'app.test', '/'), 'one');
    } finally {
      assert.equal(await second.stop(), 0);
    }
  });
});
