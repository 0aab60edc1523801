// An admission review judges a candidate on its host neighbourhood (src/webhook/neighbours.ts), not the whole
// cluster: for every Ingress of every fixture case, as it is and as a newer copy under another name (which meets
// the original's hosts and paths), the neighbourhood gives the candidate exactly the problems the whole cluster gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import { parseFlags } from '../../src/config/flags.js';
import { createLogger } from '../../src/log.js';
import type { Ingress, Snapshot } from '../../src/model/input.js';
import { describeProblem } from '../../src/model/problems.js';
import { admissionChecker, type Checker } from '../../src/pipeline/build.js';
import { judgedSnapshot } from '../../src/webhook/review.js';
import { neighbourIngresses } from '../../src/webhook/neighbours.js';
import { caseFlags, fixtureCases, loadSnapshot } from '../support/fixtures.js';

const KINDS = ['model', 'annotated', 'golden', 'render'];

function problemsOf(check: Checker, snap: Snapshot, c: Ingress): string[] {
  const ns = c.metadata?.namespace ?? 'default';
  const name = c.metadata?.name ?? '';
  return check
    .problems(snap)
    .filter((p) => p.object.kind === 'Ingress' && p.object.namespace === ns && p.object.name === name)
    .map((p) => `${p.severity} ${describeProblem(p)}`);
}

function whole(snap: Snapshot, c: Ingress): Snapshot {
  const others = snap.ingresses.filter((i) => i.metadata?.namespace !== c.metadata?.namespace || i.metadata?.name !== c.metadata?.name);
  return { ...snap, ingresses: [...others, c] };
}

function candidates(snap: Snapshot): Ingress[] {
  return snap.ingresses.flatMap((i) => {
    const meta = { ...i.metadata, name: `${i.metadata?.name ?? ''}-copy` };
    delete meta.creationTimestamp;
    return [i, { ...i, metadata: meta }];
  });
}

const log = createLogger('silent');
for (const kind of KINDS) {
  for (const dir of fixtureCases(kind)) {
    for (const strict of [false, true]) {
      test(`${kind}/${basename(dir)}${strict ? ' (strict host ownership)' : ''}: the neighbourhood judges as the whole cluster`, () => {
        const flags = ['--manifests', dir, '--allow-snippet-annotations', ...caseFlags(dir), ...(strict ? ['--strict-host-ownership'] : [])];
        const check = admissionChecker(parseFlags(flags, {}), log);
        const snap = loadSnapshot(dir);
        for (const c of candidates(snap)) {
          const ref = `${c.metadata?.namespace ?? ''}/${c.metadata?.name ?? ''}`;
          assert.deepEqual(problemsOf(check, judgedSnapshot(c, snap, check), c), problemsOf(check, whole(snap, c), c), ref);
        }
      });
    }
  }
}

function ing(name: string, hosts: string[], more: { alias?: string; defaultBackend?: boolean } = {}): Ingress {
  const annotations = more.alias ? { 'nginx.ingress.kubernetes.io/server-alias': more.alias } : {};
  const backend = { service: { name: 's', port: { number: 80 } } };
  const rules = hosts.map((host) => ({ ...(host ? { host } : {}), http: { paths: [{ path: '/', pathType: 'Prefix', backend }] } }));
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { namespace: 'n', name, annotations },
    spec: { rules, ...(more.defaultBackend ? { defaultBackend: backend } : {}) },
  } as Ingress;
}

test('the neighbourhood: shared names transitively, www twins, aliases, wildcards, and what has no host', () => {
  const check = admissionChecker(parseFlags(['--manifests', '/nonexistent'], {}), log);
  const ingresses = [
    ing('same', ['a.example.com']),
    ing('chain', ['a.example.com', 'b.example.com']),
    ing('far', ['b.example.com']),
    ing('www', ['www.c.example.com']),
    ing('alias', ['d.example.com'], { alias: 'c.example.com' }),
    ing('wild', ['*.w.example.com']),
    ing('under', ['x.w.example.com']),
    ing('hostless', ['']),
    ing('unrelated', ['z.example.com']),
  ];
  const snap = { ...loadSnapshot(fixtureCases('model')[0] ?? ''), ingresses };
  const near = (c: Ingress): string[] => (neighbourIngresses(c, snap, check.options) ?? []).map((i) => i.metadata?.name ?? '').sort();
  assert.deepEqual(near(ing('cand', ['A.example.com'])), ['chain', 'far', 'hostless', 'same']);
  assert.deepEqual(near(ing('cand', ['c.example.com'])), ['alias', 'hostless', 'www']);
  assert.deepEqual(near(ing('cand', ['y.w.example.com'])), ['hostless', 'under', 'wild']);
  assert.deepEqual(near(ing('cand', ['*.example.com'])), ['alias', 'chain', 'far', 'hostless', 'same', 'unrelated', 'www']);
  assert.deepEqual(near(ing('same', ['q.example.com'])), ['hostless'], 'its own earlier version is not a neighbour');
  assert.equal(neighbourIngresses(ing('cand', ['']), snap, check.options), undefined, 'no host: the whole cluster');
  assert.equal(neighbourIngresses(ing('cand', ['e.example.com'], { defaultBackend: true }), snap, check.options), undefined);
});

test('the index follows the snapshot: an Ingress removed is no neighbour, one added is', () => {
  const check = admissionChecker(parseFlags(['--manifests', '/nonexistent'], {}), log);
  const base = loadSnapshot(fixtureCases('model')[0] ?? '');
  const keep = ing('keep', ['a.example.com']);
  const gone = ing('gone', ['a.example.com']);
  const near = (ingresses: Ingress[]): string[] => (neighbourIngresses(ing('cand', ['a.example.com']), { ...base, ingresses }, check.options) ?? []).map((i) => i.metadata?.name ?? '').sort();
  assert.deepEqual(near([keep, gone]), ['gone', 'keep']);
  assert.deepEqual(near([keep]), ['keep']);
  assert.deepEqual(near([keep, ing('new', ['www.a.example.com'])]), ['keep', 'new']);
  assert.deepEqual(near([ing('other', ['b.example.com'])]), []);
});
