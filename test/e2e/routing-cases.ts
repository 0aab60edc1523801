// End to end, local mode, real nginx: the Kubernetes path table, host rules, merging, oldest-wins, defaults, classes.
// One list of cases, run by routing.test.ts (rendered locations) and dynamic-routing.test.ts (the Lua route table,
// docs/adr/0014): the same answers are asserted on both paths.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress as plainIngress, ingressClass, service } from '../support/objects.js';
import { manifestDir, serviceFor, writeManifests } from '../support/manifests.js';
import { get, startPortico, who, type Running } from '../support/portico.js';
import { PATH_TABLE } from '../support/path-table.js';

/**
 * `extra`: flags added to every Portico started; `check(p)`: what else must hold of a running one (e.g. which path
 * served); `annotations`: added to every Ingress (annotations that change nothing a case sees, to route the cases
 * through another path, e.g. a profile of docs/adr/0014).
 */
export function routingSuites(label: string, extra: readonly string[], check: (p: Running) => Promise<void> = async () => {}, annotations: Record<string, string> = {}): void {
  const ingress = (name: string, opts: Parameters<typeof plainIngress>[1]): ReturnType<typeof plainIngress> => plainIngress(name, { ...opts, annotations: { ...annotations, ...opts.annotations } });
  describe(`routing through real nginx${label}`, () => {
    let backends: Backend[] = [];
    let dir = '';
    let portico: Running;
    const ids = ['a', 'b', 'c', 'old', 'new', 'dflt'];

    before(async () => {
      backends = await Promise.all(ids.map((id) => startBackend(id)));
      const [a, b, c, old, neu, dflt] = backends as [Backend, Backend, Backend, Backend, Backend, Backend];
      dir = await manifestDir();
      const objects: unknown[] = [
        ingressClass('portico'),
        ingressClass('other', 'example.com/other'),
        ...serviceFor('svc0', [a]),
        ...serviceFor('svc1', [b]),
        ...serviceFor('svc2', [c]),
        ...serviceFor('old', [old]),
        ...serviceFor('new', [neu]),
        ...serviceFor('dflt', [dflt]),
        service('empty'),
      ];
      PATH_TABLE.forEach((row, i) => {
        objects.push(ingress(`table-${i}`, { className: 'portico', host: `row${i}.table.test`, paths: row.paths.map((p, j) => ({ ...p, service: `svc${j}` })) }));
      });
      objects.push(
        ingress('hosts', {
          className: 'portico',
          rules: [
            { host: 'foo.test', paths: [{ path: '/', type: 'Prefix', service: 'svc0' }] },
            { host: '*.foo.test', paths: [{ path: '/', type: 'Prefix', service: 'svc1' }] },
            { paths: [{ path: '/nohost', type: 'Prefix', service: 'svc2' }] },
          ],
        }),
        // Merge across Ingresses of one host, and the oldest wins the same host + path + type.
        ingress('younger', {
          className: 'portico',
          host: 'merge.test',
          created: '2026-02-01T00:00:00Z',
          paths: [
            { path: '/shared', type: 'Prefix', service: 'new' },
            { path: '/young', type: 'Prefix', service: 'svc1' },
          ],
        }),
        ingress('older', {
          className: 'portico',
          host: 'merge.test',
          created: '2026-01-01T00:00:00Z',
          paths: [
            { path: '/shared', type: 'Prefix', service: 'old' },
            { path: '/old', type: 'Exact', service: 'svc0' },
          ],
        }),
        ingress('no-endpoints', { className: 'portico', host: 'empty.test', paths: [{ path: '/', type: 'Prefix', service: 'empty' }] }),
        ingress('missing-svc', { className: 'portico', host: 'missing.test', paths: [{ path: '/', type: 'Prefix', service: 'nope' }] }),
        ingress('other-class', { className: 'other', host: 'other.test', paths: [{ path: '/', type: 'Prefix', service: 'svc0' }] }),
        ingress('unknown-class', { className: 'nonexistent', host: 'unknown.test', paths: [{ path: '/', type: 'Prefix', service: 'svc0' }] }),
        ingress('legacy', { annotations: { 'kubernetes.io/ingress.class': 'portico' }, host: 'legacy.test', paths: [{ path: '/', type: 'Prefix', service: 'svc1' }] }),
        ingress('legacy-other', { annotations: { 'kubernetes.io/ingress.class': 'nginx' }, host: 'legacy-other.test', paths: [{ path: '/', type: 'Prefix', service: 'svc1' }] }),
        ingress('classless', { host: 'classless.test', paths: [{ path: '/', type: 'Prefix', service: 'svc2' }] }),
      );
      await writeManifests(dir, 'all.yaml', objects);
      portico = await startPortico(['--manifests', dir, ...extra]);
    });

    after(async () => {
      await portico?.stop();
      await Promise.all(backends.map((b) => b.close()));
      await rm(dir, { recursive: true, force: true });
    });

    test('served by the routing path under test', async () => {
      await check(portico);
    });

    test('every row of the Kubernetes path table', async () => {
      const names = ['a', 'b', 'c'];
      for (const [i, row] of PATH_TABLE.entries()) {
        const want = row.expect === undefined ? '404' : names[row.expect];
        assert.equal(await who(portico.http, `row${i}.table.test`, row.request), want, `row ${row.row}: ${row.request}`);
      }
    });

    test('exact hosts, one-label wildcards, and rules without a host', async () => {
      assert.equal(await who(portico.http, 'foo.test', '/x'), 'a');
      assert.equal(await who(portico.http, 'FOO.test', '/x'), 'a', 'hosts are case-insensitive');
      assert.equal(await who(portico.http, 'bar.foo.test', '/x'), 'b');
      assert.equal(await who(portico.http, 'baz.bar.foo.test', '/x'), '404');
      assert.equal(await who(portico.http, 'anything.else', '/nohost/x'), 'c');
      assert.equal(await who(portico.http, 'anything.else', '/x'), '404');
    });

    test('paths of one host merge across Ingresses, and the oldest Ingress wins a conflict', async () => {
      assert.equal(await who(portico.http, 'merge.test', '/shared/x'), 'old');
      assert.equal(await who(portico.http, 'merge.test', '/young'), 'b');
      assert.equal(await who(portico.http, 'merge.test', '/old'), 'a');
      assert.ok(
        portico.output.some((l) => l.includes('Ingress default/younger') && l.includes('older Ingress default/older')),
        'the losing Ingress is named in a warning',
      );
    });

    test('requests that match no rule get the built-in 404', async () => {
      const r = await get(portico.http, 'nobody.test', '/');
      assert.equal(r.status, 404);
      assert.match(r.body, /default backend - 404/);
    });

    test('a backend without ready endpoints, or a missing Service, answers 503', async () => {
      assert.equal(await who(portico.http, 'empty.test', '/'), '503');
      assert.equal(await who(portico.http, 'missing.test', '/'), '503');
      assert.ok(portico.output.some((l) => l.includes('Service default/nope not found')));
    });

    test('only Ingresses of our class are served', async () => {
      assert.equal(await who(portico.http, 'legacy.test', '/'), 'b');
      for (const host of ['other.test', 'unknown.test', 'legacy-other.test', 'classless.test']) {
        assert.equal(await who(portico.http, host, '/'), '404', host);
      }
    });
  });

  describe(`default backends and classless Ingresses${label}`, () => {
    let backends: Backend[] = [];
    let dir = '';
    const running: Running[] = [];

    before(async () => {
      backends = await Promise.all(['a', 'dflt', 'flag', 'classless'].map((id) => startBackend(id)));
      const [a, dflt, flag, classless] = backends as [Backend, Backend, Backend, Backend];
      dir = await manifestDir();
      await writeManifests(dir, 'objects.yaml', [
        ingressClass('portico', 'portico.dev/ingress-controller', true),
        ...serviceFor('svc0', [a]),
        ...serviceFor('dflt', [dflt]),
        ...serviceFor('flagged', [flag]),
        ...serviceFor('nc', [classless]),
        ingress('with-default', { className: 'portico', host: 'dflt.test', defaultBackend: 'dflt', paths: [{ path: '/app', type: 'Prefix', service: 'svc0' }] }),
        ingress('no-class', { host: 'noclass.test', paths: [{ path: '/', type: 'Prefix', service: 'nc' }] }),
      ]);
    });

    after(async () => {
      for (const r of running) await r.stop();
      await Promise.all(backends.map((b) => b.close()));
      await rm(dir, { recursive: true, force: true });
    });

    test('spec.defaultBackend takes every host and path no rule matches; a default IngressClass takes classless Ingresses', async () => {
      const p = await startPortico(['--manifests', dir, ...extra]);
      running.push(p);
      assert.equal(await who(p.http, 'dflt.test', '/app/1'), 'a');
      assert.equal(await who(p.http, 'dflt.test', '/elsewhere'), 'dflt');
      assert.equal(await who(p.http, 'nobody.test', '/'), 'dflt');
      assert.equal(await who(p.http, 'noclass.test', '/'), 'classless');
    });

    test('--default-backend-service serves unmatched requests when no Ingress has a default backend', async () => {
      const only = await manifestDir();
      await writeManifests(only, 'objects.yaml', [
        ...serviceFor('flagged', [backends[2]!], { namespace: 'infra' }),
        ingressClass('portico'),
        ...serviceFor('nc', [backends[3]!]),
        ingress('no-class', { host: 'noclass.test', paths: [{ path: '/', type: 'Prefix', service: 'nc' }] }),
      ]);
      const p = await startPortico(['--manifests', only, '--default-backend-service=infra/flagged', ...extra]);
      running.push(p);
      assert.equal(await who(p.http, 'nobody.test', '/x'), 'flag');
      assert.equal(await who(p.http, 'noclass.test', '/'), 'flag', 'a classless Ingress is not ours without a default class');
      await p.stop();
      const q = await startPortico(['--manifests', only, '--watch-ingress-without-class=true', ...extra]);
      running.push(q);
      assert.equal(await who(q.http, 'noclass.test', '/'), 'classless');
      assert.equal(await who(q.http, 'nobody.test', '/x'), '404');
      await rm(only, { recursive: true, force: true });
    });
  });
}
