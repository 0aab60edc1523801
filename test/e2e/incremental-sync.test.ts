// End to end, local mode, real nginx, --incremental-sync (docs/adr/0039): an Ingress added in another namespace, one
// sharing a host with an older Ingress of another namespace, and their removal are built in part by the build worker
// (its debug line says so) and served as the whole build serves them, with no reload.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress } from '../support/objects.js';
import { manifestFolder, serviceFor, type ManifestDir } from '../support/manifests.js';
import { metric, startPortico, until, untilServed, type Running } from '../support/portico.js';

describe('an incremental sync serves what the whole build serves', () => {
  let backends: Backend[] = [];
  let folder: ManifestDir;
  let portico: Running;
  let reloads = 0;
  const parts = (): number => portico.output.filter((l) => l.includes('"msg":"build"') && l.includes('"part":')).length;

  before(async () => {
    backends = await Promise.all(['a', 'b', 'c'].map((id) => startBackend(id)));
    folder = await manifestFolder();
    await folder.write('services.json', [...serviceFor('a', [backends[0]!]), ...serviceFor('b', [backends[1]!], { namespace: 'other' }), ...serviceFor('c', [backends[2]!], { namespace: 'third' })]);
    const created = '2026-01-01T00:00:00Z';
    await folder.write('one.json', [ingress('one', { className: 'portico', host: 'one.test', created, paths: [{ path: '/', type: 'Prefix', service: 'a' }] })]);
    portico = await startPortico(['--manifests', folder.dir, '--enable-dynamic-routes', '--incremental-sync', '--log-level', 'debug']);
    await untilServed(portico.http, 'the first Ingress', [['one.test', '/', 'a']]);
    reloads = await metric(portico, 'portico_reloads_total');
  });

  after(async () => {
    await portico?.stop();
    await Promise.all(backends.map((b) => b.close()));
    await folder?.remove();
  });

  test('a new Ingress of another namespace on a new host, then removed', async () => {
    const before = parts();
    await folder.write('two.json', [ingress('two', { namespace: 'other', className: 'portico', host: 'two.test', paths: [{ path: '/', type: 'Prefix', service: 'b' }] })]);
    await untilServed(portico.http, 'two.test', [
      ['two.test', '/x', 'b'],
      ['one.test', '/x', 'a'],
    ]);
    await until('the build worker built it in part', () => parts() > before);
    await folder.write('two.json', []);
    await untilServed(portico.http, 'two.test removed', [
      ['two.test', '/x', '404'],
      ['one.test', '/x', 'a'],
    ]);
  });

  test("a newer Ingress of another namespace on the older one's host: only its longer prefix is served", async () => {
    const before = parts();
    await folder.write('three.json', [
      ingress('three', {
        namespace: 'third',
        className: 'portico',
        host: 'one.test',
        paths: [
          { path: '/', type: 'Prefix', service: 'c' },
          { path: '/c', type: 'Prefix', service: 'c' },
        ],
      }),
    ]);
    await untilServed(portico.http, 'the longer prefix', [
      ['one.test', '/c/x', 'c'],
      ['one.test', '/x', 'a'],
    ]);
    await until('the build worker built it in part', () => parts() > before);
    assert.equal(await metric(portico, 'portico_reloads_total'), reloads, 'no reload');
  });
});
