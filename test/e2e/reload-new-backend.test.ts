// End to end, local mode, real nginx: an Ingress that needs a reload (a server-snippet gives its host a server block)
// and names a Service no other Ingress uses. The new workers must know its backend from their first request: before,
// the backends were pushed only after the reload, and for 100-200 ms the new host answered 503 (seen in CI on the
// ingress-nginx serversnippet suite). Clients ask for the host throughout; every answer is the old configuration's
// 404 until the reload, then backend b's, never a 503.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress } from '../support/objects.js';
import { configMap, manifestFolder, serviceFor, type ManifestDir } from '../support/manifests.js';
import { startPortico, syncCount, until, who, type Running } from '../support/portico.js';

const SNIPPET = { 'nginx.ingress.kubernetes.io/server-snippet': 'more_set_headers "X-Snippet: on";' };
const ALLOW = { 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical' };

void describe('a reload that brings a new backend', () => {
  let a: Backend;
  let b: Backend;
  let folder: ManifestDir;
  let portico: Running;

  before(async () => {
    a = await startBackend('a');
    b = await startBackend('b');
    folder = await manifestFolder();
    await folder.write('services.json', [...serviceFor('a', [a]), ...serviceFor('b', [b])]);
    await folder.write('configmap.json', [configMap('portico', ALLOW)]);
    await folder.write('first.json', [ingress('first', { className: 'portico', host: 'first.test', paths: [{ path: '/', type: 'Prefix', service: 'a' }] })]);
    portico = await startPortico(['--manifests', folder.dir, '--configmap', 'default/portico', '--worker-processes', '2']);
    await until('first.test served', async () => (await who(portico.http, 'first.test', '/')) === 'a', 15_000);
  });

  after(async () => {
    await portico?.stop();
    await a?.close();
    await b?.close();
    await folder?.remove();
  });

  test('the new host answers 404, then its backend, never 503', async () => {
    const seen = new Map<string, number>();
    let sawB = false;
    const late: string[] = [];
    let stop = false;
    const deadline = Date.now() + 30_000;
    const clients = Array.from({ length: 4 }, async () => {
      while (!stop && Date.now() < deadline) {
        const got = await who(portico.http, 'new.test', '/');
        seen.set(got, (seen.get(got) ?? 0) + 1);
        if (got === 'b') sawB = true;
        else if (sawB) late.push(got);
      }
    });
    try {
      const reloads = syncCount(portico.output, 'reload');
      await folder.write('new.json', [ingress('new', { className: 'portico', host: 'new.test', annotations: SNIPPET, paths: [{ path: '/', type: 'Prefix', service: 'b' }] })]);
      await until('the new Ingress reloads nginx', () => syncCount(portico.output, 'reload') > reloads, 15_000, 10);
      await until('backend b answers', () => sawB, 10_000, 10);
      await new Promise((r) => setTimeout(r, 500)); // the old workers' connections drain meanwhile
    } finally {
      stop = true;
      await Promise.all(clients);
    }
    const answers = Object.fromEntries(seen);
    assert.equal(answers['503'], undefined, `answers: ${JSON.stringify(answers)}`);
    assert.deepEqual(Object.keys(answers).sort(), ['404', 'b'], `answers: ${JSON.stringify(answers)}`);
    assert.ok((answers['b'] ?? 0) > 20, `backend b answered after the reload: ${JSON.stringify(answers)}`);
  });
});
