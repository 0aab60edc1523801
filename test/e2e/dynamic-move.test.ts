// End to end, local mode, real nginx, dynamic routes (the default, docs/adr/0014): a host that moves between a server
// block and the Lua route table (a server-alias annotation removed, then added again) costs a reload each way, and
// is served by its backend through every one of them: no request answers 404 while the new workers wait for the
// route table (the executor adds the moving host to the table Lua holds before the reload).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress } from '../support/objects.js';
import { manifestFolder, serviceFor, type ManifestDir } from '../support/manifests.js';
import { get, startPortico, syncCount, until, who, type Running } from '../support/portico.js';

const ALIAS = { 'nginx.ingress.kubernetes.io/server-alias': 'alias.moving.test' };

describe('a host moving between a server block and the route table', () => {
  let backend: Backend;
  let folder: ManifestDir;
  let portico: Running;

  const write = (annotations: Record<string, string> | undefined): Promise<void> =>
    folder.write('moving.json', [ingress('moving', { className: 'portico', host: 'moving.test', paths: [{ path: '/', type: 'Prefix', service: 'a' }], ...(annotations ? { annotations } : {}) })]);
  const routed = async (): Promise<boolean> => {
    const r = await get(portico.healthz, 'localhost', '/debug/routes');
    return r.status === 200 && Object.hasOwn((JSON.parse(r.body) as { hosts: Record<string, unknown> }).hosts, 'moving.test');
  };

  before(async () => {
    backend = await startBackend('a');
    folder = await manifestFolder();
    await folder.write('services.json', serviceFor('a', [backend]));
    await write(ALIAS);
    // The default, given explicitly: the suite's rendered-everywhere run (PORTICO_TEST_DYNAMIC_ROUTES=0) keeps it.
    portico = await startPortico(['--manifests', folder.dir, '--worker-processes', '2', '--enable-dynamic-routes']);
    await until('moving.test served', async () => (await who(portico.http, 'moving.test', '/')) === 'a', 15_000);
  });

  after(async () => {
    await portico?.stop();
    await backend?.close();
    await folder?.remove();
  });

  test('no request fails across three moves into the table and back', async () => {
    const wrong = new Map<string, number>();
    let answers = 0;
    let stop = false;
    const deadline = Date.now() + 60_000;
    const clients = Array.from({ length: 4 }, async () => {
      while (!stop && Date.now() < deadline) {
        const got = await who(portico.http, 'moving.test', '/x');
        answers += 1;
        if (got !== 'a') wrong.set(got, (wrong.get(got) ?? 0) + 1);
      }
    });
    try {
      for (let i = 0; i < 3; i += 1) {
        let reloads = syncCount(portico.output, 'reload');
        await write(undefined);
        await until('the move into the route table reloads', () => syncCount(portico.output, 'reload') > reloads, 15_000, 10);
        await until('the host is a row of the route table', routed, 10_000);
        reloads = syncCount(portico.output, 'reload');
        await write(ALIAS);
        await until('the move back to a server block reloads', () => syncCount(portico.output, 'reload') > reloads, 15_000, 10);
        await until('the host left the route table', async () => !(await routed()), 10_000);
      }
    } finally {
      stop = true;
      await Promise.all(clients);
    }
    assert.ok(answers > 100, `the clients ran (${answers} answers)`);
    assert.deepEqual(Object.fromEntries(wrong), {}, `answers other than backend a out of ${answers}`);
  });
});
