// End to end, local mode, real nginx with two workers, dynamic routes: a change that reloads nginx and brings new
// hosts to the route table. One sync's changes become visible together: the new hosts go to the table after the
// reload, not before it, so a client that sees a new host served also sees the rest of its sync (the first sync
// after the startup head is the exception, test/e2e/startup-head.test.ts; docs/adr/0057). Whatever the order, an old
// worker never answers a new host with a named location it lacks (a 500): only the 404 it gave before.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress } from '../support/objects.js';
import { manifestFolder, serviceFor, type ManifestDir } from '../support/manifests.js';
import { get, startPortico, syncCount, until, who, type Running } from '../support/portico.js';

const TIMEOUT = 'nginx.ingress.kubernetes.io/proxy-read-timeout';
const app = (name: string, timeout?: string): ReturnType<typeof ingress> =>
  ingress(name, { className: 'portico', host: `${name}.test`, paths: [{ path: '/', type: 'Prefix', service: 'a' }], ...(timeout ? { annotations: { [TIMEOUT]: timeout } } : {}) });

describe('new hosts of a reload, in the route table after it', () => {
  let backend: Backend;
  let folder: ManifestDir;
  let portico: Running;

  before(async () => {
    backend = await startBackend('a');
    folder = await manifestFolder();
    await folder.write('services.json', serviceFor('a', [backend]));
    await folder.write('base.json', [app('base', '30')]);
    portico = await startPortico(['--manifests', folder.dir, '--worker-processes', '2', '--enable-dynamic-routes', '--log-level', 'debug']);
    await until('base.test served', async () => (await who(portico.http, 'base.test', '/')) === 'a', 15_000);
  });

  after(async () => {
    await portico?.stop();
    await backend?.close();
    await folder?.remove();
  });

  test('a plain host, a host with a known named location and one with a new one: all after the reload; none answers 500', async () => {
    const added = (): number[] => portico.output.filter((l) => l.includes('hosts new to it added before the reload')).map((l) => (JSON.parse(l) as { hosts: number }).hosts);
    const before = added().length;
    const reloads = syncCount(portico.output, 'reload');
    const seen = new Map<string, Set<number>>();
    let stop = false;
    const deadline = Date.now() + 30_000;
    const clients = ['plain', 'same', 'fresh'].map(async (name) => {
      const codes = new Set<number>();
      seen.set(name, codes);
      while (!stop && Date.now() < deadline) codes.add((await get(portico.http, `${name}.test`, '/')).status);
    });
    try {
      // one change: a new host without annotations, one with base's annotation (its named location exists), one
      // with a value no Ingress had (a named location only the new nginx.conf has: the change reloads)
      await folder.write('new.json', [app('plain'), app('same', '30'), app('fresh', '31')]);
      await until('the change reloads', () => syncCount(portico.output, 'reload') > reloads, 15_000, 10);
      await until('every new host served', async () => (await Promise.all(['plain', 'same', 'fresh'].map((n) => who(portico.http, `${n}.test`, '/')))).every((w) => w === 'a'), 10_000);
    } finally {
      stop = true;
      await Promise.all(clients);
    }
    assert.deepEqual(added().slice(before), [], 'no new host goes to the table before the reload of its sync');
    for (const [name, codes] of seen) {
      assert.ok(codes.has(200), `${name}.test was served`);
      assert.deepEqual(
        [...codes].filter((c) => c !== 200 && c !== 404),
        [],
        `${name}.test answered only 404 (before) and 200 (after)`,
      );
    }
  });
});
