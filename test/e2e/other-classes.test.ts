// `portico --manifests DIR` on a folder of ingress-nginx's Ingresses answers 404 for all of them
// (they are not Portico's class); it must say so at start, as a Warning, with how many and which flags would serve
// them, and again when that changes. Run with those flags, the same folder is served (real nginx).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress, ingressClass } from '../support/objects.js';
import { backendObjects, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { get, startPortico, until, type Running } from '../support/portico.js';

interface LogLine {
  level: number;
  msg: string;
  ingresses?: number;
  flags?: string[];
  classes?: Record<string, number>;
}

const warnings = (p: Running): LogLine[] =>
  p.output
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine)
    .filter((l) => l.level === 40 && l.msg.includes("not of Portico's class"));

describe('Ingresses of another class: a Warning that says which flags serve them', () => {
  let web: Backend;
  let m: ManifestDir;
  let p: Running | undefined;

  before(async () => {
    web = await startBackend('web');
    m = await manifestFolder();
    await m.write('objects.json', [
      ...backendObjects('web', web.port),
      ingressClass('nginx', 'k8s.io/ingress-nginx'),
      ingress('a', { className: 'nginx', host: 'a.test', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }),
      ingress('b', { className: 'nginx', host: 'b.test', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }),
      ingress('legacy', { host: 'legacy.test', annotations: { 'kubernetes.io/ingress.class': 'nginx' }, paths: [{ path: '/', type: 'Prefix', service: 'web' }] }),
      ingress('none', { host: 'none.test', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }),
    ]);
  });

  after(async () => {
    await p?.stop();
    await web?.close();
    await m?.remove();
  });

  test('at start: 404 for all, and one Warning with the count, the classes and the flags', async () => {
    p = await startPortico(['--manifests', m.dir]);
    await until('the Warning', () => warnings(p!).length > 0, 10_000);
    for (const host of ['a.test', 'b.test', 'legacy.test', 'none.test']) assert.equal((await get(p.http, host, '/')).status, 404, host);
    const [w] = warnings(p);
    assert.equal(
      w?.msg,
      "4 Ingresses are not served: not of Portico's class (class nginx: 2, served with --controller-class k8s.io/ingress-nginx; " +
        'annotation kubernetes.io/ingress.class: nginx: 1, served with --ingress-class nginx; no class: 1, served with --watch-ingress-without-class)',
    );
    assert.equal(w?.ingresses, 4);
    assert.deepEqual(w?.flags, ['--controller-class k8s.io/ingress-nginx', '--ingress-class nginx', '--watch-ingress-without-class']);
  });

  test('again when it changes, and not for syncs that change nothing about it', async () => {
    assert.ok(p);
    await m.write('more.json', [ingress('c', { className: 'nginx', host: 'c.test', paths: [{ path: '/', type: 'Prefix', service: 'web' }] })]);
    await until('the second Warning', () => warnings(p!).length >= 2, 10_000);
    assert.equal(warnings(p)[1]?.ingresses, 5);
    await m.write('more.json', [ingress('c', { className: 'nginx', host: 'c.test', paths: [{ path: '/x', type: 'Prefix', service: 'web' }] })]);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(warnings(p).length, 2, 'the same count and classes: said once');
    await p.stop();
    p = undefined;
  });

  test('run with the flags it names, every Ingress is served and nothing is said', async () => {
    p = await startPortico(['--manifests', m.dir, '--controller-class', 'k8s.io/ingress-nginx', '--ingress-class', 'nginx', '--watch-ingress-without-class']);
    for (const host of ['a.test', 'b.test', 'legacy.test', 'none.test']) {
      await until(`${host} served`, async () => (await get(p!.http, host, '/')).headers['x-backend'] === 'web', 10_000);
    }
    assert.deepEqual(warnings(p), []);
  });
});
