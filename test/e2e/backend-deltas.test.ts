// End to end, local mode, real nginx, --enable-dynamic-routes: after the first full backends list, an endpoint change
// reaches nginx as a delta of the one backend that changed (POST /configuration/backends?from=OLD&id=NEW) and each
// worker applies only it; a backend removed leaves with a delta; after nginx restarts (its shared dict empty) the full
// list is pushed again and deltas follow it. None of these reloads nginx.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress } from '../support/objects.js';
import { manifestFolder, serviceFor, type ManifestDir } from '../support/manifests.js';
import { get, startPortico, syncCount, until, who, type Running, untilServed } from '../support/portico.js';

type Push = 'all' | { set: number; removed: number };

describe('backends deltas: only the backends that changed are pushed', () => {
  let pool: Backend[] = [];
  let folder: ManifestDir;
  let portico: Running;
  const names = ['s1', 's2', 's3', 's4'];
  const at = (id: string): Backend => {
    const b = pool.find((x) => x.id === id);
    if (!b) throw new Error(`backend ${id} not started`);
    return b;
  };

  const served = (what: string, cases: readonly [string, string][]): Promise<void> =>
    untilServed(
      portico.http,
      what,
      cases.map(([host, want]) => [host, '/', want] as const),
    );
  const pushes = (): Push[] =>
    portico.output.flatMap((l): Push[] => {
      if (l.includes('backends: pushed all')) return ['all'];
      const m = /"set":(\d+),"removed":(\d+)[^\n]*backends: pushed the ones that changed/.exec(l);
      return m ? [{ set: Number(m[1]), removed: Number(m[2]) }] : [];
    });
  const pushedSince = async (n: number): Promise<Push[]> => {
    await until('the push is logged', () => pushes().length > n);
    return pushes().slice(n);
  };
  const reloads = (): number => syncCount(portico.output, 'reload');

  before(async () => {
    pool = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((id) => startBackend(id)));
    folder = await manifestFolder();
    for (const [i, name] of names.entries()) {
      await folder.write(`${name}-svc.json`, serviceFor(name, [pool[i]!]));
      await folder.write(`${name}.json`, [ingress(name, { className: 'portico', host: `${name}.test`, paths: [{ path: '/', type: 'Prefix', service: name }] })]);
    }
    portico = await startPortico(['--manifests', folder.dir, '--enable-dynamic-routes']);
    await served('the first backends', [
      ['s1.test', 'a'],
      ['s4.test', 'd'],
    ]);
    await until('the first list is pushed whole', () => pushes().includes('all'));
  });

  after(async () => {
    await portico?.stop();
    await Promise.all(pool.map((b) => b.close()));
    await folder?.remove();
  });

  test('an endpoint change: a delta of one backend, served at once, the others unchanged, no reload', async () => {
    const n = pushes().length;
    const r = reloads();
    await folder.write('s1-svc.json', serviceFor('s1', [at('e')]));
    await served('s1 on its new endpoint', [
      ['s1.test', 'e'],
      ['s2.test', 'b'],
      ['s3.test', 'c'],
    ]);
    assert.deepEqual(await pushedSince(n), [{ set: 1, removed: 0 }]);
    await folder.write('s2-svc.json', serviceFor('s2', [at('a'), at('c')]));
    await until('s2 on both new endpoints', async () => {
      const seen = new Set<string>();
      for (let i = 0; i < 8; i += 1) seen.add(await who(portico.http, 's2.test', `/${i}`));
      return seen.size === 2 && seen.has('a') && seen.has('c');
    });
    assert.deepEqual(await pushedSince(n + 1), [{ set: 1, removed: 0 }]);
    assert.equal(reloads(), r, 'no reload');
  });

  test('a backend removed (its Ingress deleted): a delta that removes it, the others served, no reload', async () => {
    const n = pushes().length;
    const r = reloads();
    await rm(join(folder.dir, 's4.json'));
    await served('s4.test gone', [
      ['s4.test', '404'],
      ['s1.test', 'e'],
      ['s3.test', 'c'],
    ]);
    assert.deepEqual(await pushedSince(n), [{ set: 0, removed: 1 }]);
    assert.equal(reloads(), r, 'no reload');
  });

  test('nginx killed: restarted with an empty dict, the full list is pushed again and deltas follow it', async () => {
    const master = Number((await readFile(join(portico.workDir, 'nginx.pid'), 'utf8')).trim());
    const n = pushes().length;
    process.kill(master, 'SIGKILL');
    await until(
      'nginx restarted',
      async () => Number((await readFile(join(portico.workDir, 'nginx.pid'), 'utf8').catch(() => '0')).trim()) !== master && (await get(portico.healthz, 'localhost', '/healthz')).status === 200,
      15_000,
      50,
    );
    await served('every backend back', [
      ['s1.test', 'e'],
      ['s3.test', 'c'],
      ['s4.test', '404'],
    ]);
    assert.ok((await pushedSince(n)).includes('all'), 'the full list after the restart');
    const m = pushes().length;
    await folder.write('s3-svc.json', serviceFor('s3', [at('d')]));
    await served('s3 on its new endpoint', [
      ['s3.test', 'd'],
      ['s1.test', 'e'],
    ]);
    assert.deepEqual(await pushedSince(m), [{ set: 1, removed: 0 }], 'a delta on the list pushed after the restart');
  });
});
