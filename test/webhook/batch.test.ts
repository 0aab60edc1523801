// Reviews judged together (src/webhook/batch.ts) get exactly the answers the whole cluster gives each of them: every
// Ingress of every fixture case, as it is, as a newer copy under another name and moved off its hosts, all in one
// batch, in both orders, with and without --strict-host-ownership; and candidates whose neighbourhoods meet are never
// in one model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import { parseFlags } from '../../src/config/flags.js';
import { createLogger } from '../../src/log.js';
import type { Ingress, Snapshot } from '../../src/model/input.js';
import { admissionChecker, renderOptions, type Checker } from '../../src/pipeline/build.js';
import { groupsOf, reviewBatch } from '../../src/webhook/batch.js';
import { ours, reviewAdmission, verdictOf, type Verdict } from '../../src/webhook/review.js';
import { Offload } from '../../src/worker/offload.js';
import { caseFlags, fixtureCases, loadSnapshot } from '../support/fixtures.js';

const KINDS = ['model', 'annotated', 'golden', 'render'];
const log = createLogger('silent');

function body(c: Ingress, k: number): unknown {
  const request = { uid: `u${k}`, kind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' }, operation: 'UPDATE', object: c };
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request };
}

/** The whole cluster's answer: the candidate in place of its namesake, every other Ingress as it is. */
function wholeVerdict(check: Checker, snap: Snapshot, c: Ingress): Verdict {
  if (!ours(c, snap, check)) return { allowed: true, why: 'not-ours', warnings: [] };
  const others = snap.ingresses.filter((i) => i.metadata?.namespace !== c.metadata?.namespace || i.metadata?.name !== c.metadata?.name);
  return verdictOf(c, check.problems({ ...snap, ingresses: [...others, c] }));
}

/** An update of `i` that takes it off its hosts: Ingresses near its old hosts are judged with it gone. */
function moved(i: Ingress): Ingress {
  const away = (h: string | undefined): string | undefined => (h ? `moved-${h.replace(/^\*\./, 'w.')}` : h);
  const rules = (i.spec?.rules ?? []).map((r) => ({ ...r, host: away(r.host) }));
  const tls = (i.spec?.tls ?? []).map((t) => ({ ...t, hosts: (t.hosts ?? []).map((h) => away(h) ?? '') }));
  return { ...i, spec: { ...i.spec, rules, tls } };
}

/** Each Ingress as it is, as a newer copy under another name, and moved off its hosts. */
function candidates(snap: Snapshot): Ingress[] {
  return snap.ingresses.flatMap((i) => {
    const meta = { ...i.metadata, name: `${i.metadata?.name ?? ''}-copy` };
    delete meta.creationTimestamp;
    return [i, { ...i, metadata: meta }, moved(i)];
  });
}

let grouped = 0;
for (const kind of KINDS) {
  for (const dir of fixtureCases(kind)) {
    for (const strict of [false, true]) {
      test(`${kind}/${basename(dir)}${strict ? ' (strict host ownership)' : ''}: a batch judges each as the whole cluster`, () => {
        const flags = ['--manifests', dir, '--allow-snippet-annotations', ...caseFlags(dir), ...(strict ? ['--strict-host-ownership'] : [])];
        const check = admissionChecker(parseFlags(flags, {}), log);
        const snap = loadSnapshot(dir);
        for (const list of [candidates(snap), candidates(snap).reverse()]) {
          const outcomes = reviewBatch(
            list.map((c, k) => body(c, k)),
            snap,
            check,
          );
          list.forEach((c, k) => {
            const o = outcomes[k];
            assert.ok(o?.ok, `review ${k}`);
            assert.equal(o.reply.response.uid, `u${k}`);
            assert.deepEqual(o.verdict, wholeVerdict(check, snap, c), `${c.metadata?.namespace ?? ''}/${c.metadata?.name ?? ''}`);
          });
          grouped += groupsOf(list, snap, check).filter((g) => g.length > 1).length;
        }
      });
    }
  }
}

test('the fixture batches above put more than one candidate in some model', () => {
  assert.ok(grouped > 0, 'no batch shared a model: the equivalence above would test nothing of batching');
});

function ing(name: string, hosts: string[], namespace = 'n'): Ingress {
  const backend = { service: { name: 's', port: { number: 80 } } };
  const rules = hosts.map((host) => ({ ...(host ? { host } : {}), http: { paths: [{ path: '/', pathType: 'Prefix', backend }] } }));
  return { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { namespace, name }, spec: { ingressClassName: 'nginx', rules } };
}

test('candidates share a model only when their neighbourhoods are apart', () => {
  const check = admissionChecker(parseFlags(['--manifests', '/nonexistent', '--watch-ingress-without-class'], {}), log);
  const base = loadSnapshot(fixtureCases('model')[0] ?? '');
  const snap = { ...base, ingresses: [ing('a', ['a.example.com']), ing('ab', ['a.example.com', 'b.example.com']), ing('w', ['*.w.example.com'])] };
  const groups = (cs: Ingress[]): number[][] => groupsOf(cs, snap, check);
  assert.deepEqual(groups([ing('x', ['x.example.com']), ing('y', ['y.example.com'])]), [[0, 1]], 'unrelated new hosts');
  assert.deepEqual(groups([ing('x', ['a.example.com']), ing('y', ['b.example.com'])]), [[0], [1]], 'a neighbour in common (ab)');
  assert.deepEqual(groups([ing('x', ['q.example.com']), ing('y', ['q.example.com'])]), [[0], [1]], 'the same new host');
  assert.deepEqual(groups([ing('x', ['*.example.com']), ing('y', ['q.example.com'])]), [[0], [1]], 'a wildcard over the other');
  assert.deepEqual(groups([ing('x', ['v.w.example.com']), ing('w', ['z.example.com'])]), [[0], [1]], 'the update of a neighbour');
  assert.deepEqual(groups([ing('a', ['z.example.com']), ing('a', ['y.example.com'])]), [[0], [1]], 'the same Ingress twice');
  assert.deepEqual(groups([ing('x', ['a.example.com']), ing('x', ['q.example.com'], 'm')]), [[0, 1]], 'same name, other namespace, apart');
});

test('reviews posted at once to the review worker get the answers each gets alone, a malformed one failing alone', async () => {
  const dir = fixtureCases('model').find((d) => basename(d) === 'merge-oldest-wins') ?? '';
  const config = parseFlags(['--manifests', dir, '--work-dir', '/tmp/portico-batch-test', ...caseFlags(dir)], {});
  const check = admissionChecker(config, log);
  const snap = loadSnapshot(dir);
  const broken = { ...(snap.ingresses[0] ?? ing('b', ['b.example.com'])), spec: { ...snap.ingresses[0]?.spec, rules: 'not a list' } } as unknown as Ingress;
  const bodies = [...candidates(snap).map((c, k) => body(c, k)), body(broken, 999), { kind: 'NotAReview' }];
  const o = new Offload(config, renderOptions(config, undefined));
  try {
    await o.prepare(snap);
    const got = await Promise.all(bodies.map((b) => o.review(b, snap)));
    assert.deepEqual(
      got,
      bodies.map((b) => reviewAdmission(b, snap, check)),
    );
    const bad = got.at(-2);
    assert.ok(bad?.ok && !bad.verdict.allowed && /malformed/.test(bad.verdict.message), 'the malformed candidate is refused as malformed');
  } finally {
    await o.close();
  }
});
