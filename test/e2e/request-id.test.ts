// X-Request-ID through real nginx (docs/adr/0015): a client's is kept; otherwise 32 hex digits from
// lua/portico/request_id.lua, the same id in the access log, never the same twice (across two workers and across
// the 256-id refills of each worker's pool); a location with a rewrite hook of its own gets one too (the id is set in
// the server's rewrite phase, before any location's hook).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { startBackend, type Backend, type Echo } from '../support/backends.js';
import { ingress, ingressClass } from '../support/objects.js';
import { manifestDir, serviceFor, writeManifests } from '../support/manifests.js';
import { get, startPortico, until, type Running } from '../support/portico.js';

const HEX32 = /^[0-9a-f]{32}$/;

describe('request id', () => {
  let backend: Backend;
  let dir = '';
  let portico: Running;

  before(async () => {
    backend = await startBackend('web');
    dir = await manifestDir();
    await writeManifests(dir, 'all.yaml', [
      ingressClass('portico'),
      ...serviceFor('web', [backend]),
      ingress('plain', { className: 'portico', host: 'plain.test', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }),
      // cookie affinity renders a rewrite_by_lua of its own in the location
      ingress('sticky', { className: 'portico', host: 'sticky.test', paths: [{ path: '/', type: 'Prefix', service: 'web' }], annotations: { 'nginx.ingress.kubernetes.io/affinity': 'cookie' } }),
    ]);
    portico = await startPortico(['--manifests', dir, '--worker-processes', '2']);
    await until('served', async () => (await get(portico.http, 'plain.test', '/')).status === 200);
  });

  after(async () => {
    assert.equal(await portico?.stop(), 0);
    await backend?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const sentId = async (host: string, headers: Record<string, string> = {}): Promise<string> => {
    const r = await get(portico.http, host, '/', { headers });
    assert.equal(r.status, 200, r.body);
    return String((JSON.parse(r.body) as Echo).headers['x-request-id']);
  };

  test('600 requests on fresh connections to two workers: 600 distinct 32-hex ids, each the one in the access log', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 600; i++) ids.push(await sentId('plain.test', { 'x-probe': String(i) }));
    assert.deepEqual(
      ids.filter((id) => !HEX32.test(id)),
      [],
    );
    assert.equal(new Set(ids).size, ids.length, 'no id twice');
    // Portico's stdout is a socket pair here (test/support/portico.ts): the access log is the work dir's file.
    const log = join(portico.workDir, 'logs', 'access.log');
    // buffer=64k flush=1s, one buffer per worker: every worker's lines reach the file within about a second
    const missing = async (): Promise<string[]> => {
      const logged = new Set((await readFile(log, 'utf8').catch(() => '')).split('\n').map((l) => l.split(' ').at(-1)));
      return ids.filter((id) => !logged.has(id));
    };
    await until('every id in the access log', async () => (await missing()).length === 0, 10_000, 200).catch(() => undefined);
    assert.deepEqual(await missing(), [], 'the access log holds the id the backend got');
    assert.deepEqual(
      portico.output.filter((l) => l.includes('portico: request id')),
      [],
      'the Lua id was set every time',
    );
  });

  test("a client's X-Request-ID is kept", async () => {
    assert.equal(await sentId('plain.test', { 'x-request-id': 'abc-123' }), 'abc-123');
  });

  test('a location with its own rewrite hook sends an id too', async () => {
    const ids = [await sentId('sticky.test'), await sentId('sticky.test')];
    assert.ok(
      ids.every((id) => HEX32.test(id)),
      ids.join(' '),
    );
    assert.notEqual(ids[0], ids[1]);
  });
});
