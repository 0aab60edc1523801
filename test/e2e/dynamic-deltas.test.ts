// End to end, local mode, real nginx, --enable-dynamic-routes (docs/adr/0014): after the first whole table, a change
// reaches nginx as a delta of the hosts that changed (POST /configuration/routes?from=OLD&id=NEW), and each worker
// patches the table it compiled. Added, changed and removed hosts and paths answer as the whole table would; after
// nginx restarts (its shared dict empty) the whole table is pushed again and every host is back.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress, type PathSpec } from '../support/objects.js';
import { manifestFolder, serviceFor, type ManifestDir } from '../support/manifests.js';
import { get, startPortico, until, type Running, untilServed } from '../support/portico.js';

describe('route table deltas: only the hosts that changed are pushed', () => {
  let backends: Backend[] = [];
  let folder: ManifestDir;
  let portico: Running;

  const app = (name: string, paths: PathSpec[]): unknown => ingress(name, { className: 'portico', host: `${name}.test`, paths });
  const served = (what: string, cases: readonly [string, string, string][]): Promise<void> => untilServed(portico.http, what, cases);
  /** The route table pushes logged so far: 'whole', or the number of hosts a delta carried. */
  const pushes = (): (number | 'whole')[] =>
    portico.output.flatMap((l): (number | 'whole')[] => {
      if (l.includes('route table: pushed whole')) return ['whole'];
      const m = /"hosts":(\d+),[^\n]*route table: pushed the hosts that changed/.exec(l);
      return m ? [Number(m[1])] : [];
    });
  const pushedSince = async (n: number): Promise<(number | 'whole')[]> => {
    await until('the push is logged', () => pushes().length > n);
    return pushes().slice(n);
  };

  before(async () => {
    backends = await Promise.all(['a', 'b', 'c'].map((id) => startBackend(id)));
    folder = await manifestFolder();
    await folder.write('services.json', [...serviceFor('a', [backends[0]!]), ...serviceFor('b', [backends[1]!]), ...serviceFor('c', [backends[2]!])]);
    await folder.write('one.json', [app('one', [{ path: '/', type: 'Prefix', service: 'a' }])]);
    await folder.write('two.json', [
      app('two', [
        { path: '/api', type: 'Prefix', service: 'b' },
        { path: '/web', type: 'Prefix', service: 'c' },
      ]),
    ]);
    portico = await startPortico(['--manifests', folder.dir, '--enable-dynamic-routes']);
    await served('the first Ingresses', [
      ['one.test', '/', 'a'],
      ['two.test', '/web/x', 'c'],
    ]);
    await until('the first table is pushed whole', () => pushes().includes('whole'));
  });

  after(async () => {
    await portico?.stop();
    await Promise.all(backends.map((b) => b.close()));
    await folder?.remove();
  });

  test('a host added: a delta of one host, served beside the others', async () => {
    const n = pushes().length;
    await folder.write('three.json', [app('three', [{ path: '/', type: 'Prefix', service: 'b' }])]);
    await served('three.test', [
      ['three.test', '/anything', 'b'],
      ['one.test', '/', 'a'],
      ['two.test', '/api/v1', 'b'],
    ]);
    assert.deepEqual(await pushedSince(n), [1]);
  });

  test('a path removed: that path answers 404, the host its other paths', async () => {
    const n = pushes().length;
    await folder.write('two.json', [app('two', [{ path: '/api', type: 'Prefix', service: 'b' }])]);
    await served('two.test /web removed', [
      ['two.test', '/web/x', '404'],
      ['two.test', '/api', 'b'],
      ['three.test', '/', 'b'],
    ]);
    assert.deepEqual(await pushedSince(n), [1]);
  });

  test('a host removed: it answers the default backend, the others are unchanged', async () => {
    const n = pushes().length;
    await rm(join(folder.dir, 'three.json'));
    await served('three.test removed', [
      ['three.test', '/anything', '404'],
      ['one.test', '/x', 'a'],
      ['two.test', '/api/x', 'b'],
    ]);
    assert.deepEqual(await pushedSince(n), [1]);
  });

  test('nginx killed: restarted with an empty dict, the whole table is pushed again and deltas follow it', async () => {
    const master = Number((await readFile(join(portico.workDir, 'nginx.pid'), 'utf8')).trim());
    const n = pushes().length;
    process.kill(master, 'SIGKILL');
    await until(
      'nginx restarted',
      async () => Number((await readFile(join(portico.workDir, 'nginx.pid'), 'utf8').catch(() => '0')).trim()) !== master && (await get(portico.healthz, 'localhost', '/healthz')).status === 200,
      15_000,
      50,
    );
    await served('every host back', [
      ['one.test', '/', 'a'],
      ['two.test', '/api/x', 'b'],
      ['two.test', '/web', '404'],
      ['three.test', '/', '404'],
    ]);
    assert.ok((await pushedSince(n)).includes('whole'), 'the whole table after the restart');
    const m = pushes().length;
    await folder.write('four.json', [app('four', [{ path: '/', type: 'Prefix', service: 'c' }])]);
    await served('four.test', [
      ['four.test', '/', 'c'],
      ['one.test', '/', 'a'],
    ]);
    assert.deepEqual(await pushedSince(m), [1], 'a delta on the table pushed after the restart');
  });
});
