// The inspectors leave nothing out. Against a running local-mode Portico (real nginx): `portico
// backends` shows a path's canary and the TCP services, the dashboard's routes show the canary, `portico certs` shows
// the default certificate that serves; a wrong command or a mistyped flag is one clean line with a suggestion.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { startBackend, type Backend } from '../support/backends.js';
import { presented } from '../support/certs.js';
import { ingress, slice } from '../support/objects.js';
import { backendObjects, configMap, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { REPO, freePort, get, startPortico, until, type Running } from '../support/portico.js';
import { tcpBackend, tcpWho, type StreamBackend } from '../support/stream-backends.js';

interface Cli {
  code: number;
  stdout: string;
  stderr: string;
}

/** `portico ARGS` to completion (at most 20 s). */
function cli(args: readonly string[]): Promise<Cli> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(REPO, 'bin/portico.js'), ...args], { timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

const rows = (text: string): string[][] =>
  text
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/ {2,}/));

describe('inspectors show canaries, TCP services and the default certificate', () => {
  let web: Backend;
  let canary: Backend;
  let db: StreamBackend;
  let m: ManifestDir;
  let p: Running;
  let tcpPort = 0;
  const url = (): string => `http://127.0.0.1:${p.healthz}`;

  before(async () => {
    web = await startBackend('web');
    canary = await startBackend('web-canary');
    db = await tcpBackend('db');
    tcpPort = await freePort();
    m = await manifestFolder();
    await m.write('objects.json', [
      ...backendObjects('web', web.port),
      ...backendObjects('web-canary', canary.port),
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'db', namespace: 'default' }, spec: { ports: [{ name: 'tcp', port: 5432, protocol: 'TCP' }] } },
      slice('db', db.port, ['127.0.0.1'], { name: 'db-0', portName: 'tcp' }),
      ingress('web', { className: 'portico', host: 'shop.test', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }),
      ingress('web-canary', {
        className: 'portico',
        host: 'shop.test',
        created: '2026-01-02T00:00:00Z',
        annotations: { 'nginx.ingress.kubernetes.io/canary': 'true', 'nginx.ingress.kubernetes.io/canary-by-header': 'X-Canary', 'nginx.ingress.kubernetes.io/canary-weight': '10' },
        paths: [{ path: '/', type: 'Prefix', service: 'web-canary' }],
      }),
      configMap('tcp', { [String(tcpPort)]: 'default/db:5432' }, 'ingress'),
    ]);
    p = await startPortico(['--manifests', m.dir, '--tcp-services-configmap', 'ingress/tcp']);
    await until(
      'the canary and the TCP port serve',
      async () => (await get(p.http, 'shop.test', '/', { headers: { 'x-canary': 'always' } })).headers['x-backend'] === 'web-canary' && (await tcpWho(tcpPort).catch(() => '')) === 'db',
    );
  });

  after(async () => {
    await p?.stop();
    await Promise.all([web?.close(), canary?.close(), db?.close()]);
    await m?.remove();
  });

  test('portico backends: the canary row after its main path, and the TCP port with its endpoint', async () => {
    // X-Canary: never keeps this request off the 10% weight, so the main path answers every time.
    assert.equal((await get(p.http, 'shop.test', '/', { headers: { 'x-canary': 'never' } })).headers['x-backend'], 'web');
    const r = await cli(['backends', '--url', url()]);
    assert.equal(r.code, 0, r.stderr);
    const t = rows(r.stdout);
    const shop = t.filter((row) => row[0] === 'shop.test' && row[1] === '/');
    assert.deepEqual(shop, [
      ['shop.test', '/', 'default/web', 'default/web:80', `127.0.0.1:${web.port} ready`],
      ['shop.test', '/', 'default/web-canary', 'default/web-canary:80 (canary: weight 10/100, header X-Canary)', `127.0.0.1:${canary.port} ready`],
    ]);
    assert.deepEqual(
      t.find((row) => row[0] === `${tcpPort}/tcp`),
      [`${tcpPort}/tcp`, 'default/db:5432', `ingress/tcp[${tcpPort}]`, `127.0.0.1:${db.port} ready`],
    );
    const json = JSON.parse((await cli(['backends', '--url', url(), '--json'])).stdout) as { stream: { port: number; protocol: string; service: string }[] };
    assert.deepEqual(
      json.stream.map((s) => [s.port, s.protocol, s.service]),
      [[tcpPort, 'tcp', 'default/db:5432']],
    );
  });

  test("the dashboard's routes (its state.json) hold the canary", async () => {
    const state = JSON.parse((await get(p.healthz, 'localhost', '/dashboard/state.json')).body) as { routes: { host: string; paths: { ingress: string; canary?: string }[] }[] };
    const paths = state.routes.find((r) => r.host === 'shop.test')?.paths ?? [];
    assert.deepEqual(
      paths.map((x) => [x.ingress, x.canary ?? '']),
      [
        ['default/web', ''],
        ['default/web-canary', 'weight 10/100, header X-Canary'],
      ],
    );
  });

  test('portico certs: the default certificate that answers every TLS connection is listed', async () => {
    const served = await presented(p.https, 'shop.test');
    const r = await cli(['certs', '--url', url()]);
    assert.equal(r.code, 0, r.stderr);
    const t = rows(r.stdout);
    assert.deepEqual(t[0], ['HOST', 'SECRET', 'ISSUER', 'EXPIRES', 'DAYS LEFT']);
    const def = t.find((row) => row[0] === '*');
    assert.ok(def, `a row for the default certificate:\n${r.stdout}`);
    assert.equal(def[1], '(default certificate)');
    assert.match(def[2] ?? '', new RegExp(served.cn.replace(/[.*]/g, '\\$&')), 'the issuer of the self-signed certificate nginx presents');
  });
});

describe('a wrong word on the command line', () => {
  test('an unknown command names every command, and the nearest one', async () => {
    const r = await cli(['backend']);
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'portico: unknown command "backend"; did you mean backends? (commands: render, migrate-check, backends, config, certs, status, gateway)\n');
  });

  test('a mistyped flag: one clean line with a suggestion, no parser text', async () => {
    const r = await cli(['--manifests', '/nonexistent', '--ingres-class', 'nginx']);
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'portico: unknown flag --ingres-class; did you mean --ingress-class? (see portico --help)\n');
    const i = await cli(['backends', '--jsno']);
    assert.equal(i.code, 2);
    assert.equal(i.stderr.split('\n')[0], 'portico backends: unknown flag --jsno; did you mean --json?');
  });
});
