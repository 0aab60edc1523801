// ingress-nginx e2e settings/ingress_class.go: which Ingresses are served, by IngressClass, legacy annotation and the
// flags --ingress-class, --controller-class, --watch-ingress-without-class and --ingress-class-by-name. Each flag set
// of an upstream Context is one Portico here. Portico's own class is `portico` (ingress-nginx's is `nginx`).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ingressClass } from '../../support/objects.js';
import { ing, startSuite, type Suite } from '../harness.js';

const LEGACY = 'kubernetes.io/ingress.class';
const OTHER_CLASS = 'test-new-ingress-class';
const OTHER_CONTROLLER = 'k8s.io/other-class';

type Ingress = ReturnType<typeof ing>;
const nameOf = (i: Ingress): string => i.metadata?.name ?? '';

/** An Ingress for `host` naming its class by spec (`className`, undefined: none) and/or the legacy annotation. */
function classed(host: string, how: { className?: string; annotation?: string }): Ingress {
  const i = ing(host, host, how.annotation === undefined ? {} : { annotations: { [LEGACY]: how.annotation } });
  const spec: Record<string, unknown> = { ...i.spec };
  if (how.className === undefined) delete spec['ingressClassName'];
  else spec['ingressClassName'] = how.className;
  return { ...i, spec };
}

/** Status of `host`, or 'echo' when the echo backend answered. */
async function answer(s: Suite, host: string): Promise<number | 'echo'> {
  const r = await s.get(host, '/');
  return r.status === 200 && r.headers['x-backend'] === 'echo' ? 'echo' : r.status;
}

/**
 * Writes the Ingresses with a marker Ingress in the same file (one file is taken in one snapshot), waits until the
 * marker is served, so the rest of the file is applied too, then returns what each host answers.
 */
async function serve(s: Suite, file: string, ingresses: Ingress[], markerClass: { className?: string; annotation?: string } = { className: 'portico' }): Promise<Record<string, number | 'echo'>> {
  const marker = `marker-${file}-${Date.now()}`;
  await s.put(`${file}.json`, [...ingresses, classed(marker, markerClass)], async () => (await answer(s, marker)) === 'echo');
  const out: Record<string, number | 'echo'> = {};
  for (const i of ingresses) out[nameOf(i)] = await answer(s, nameOf(i));
  return out;
}

void describe('settings/ingress_class.go', () => {
  void describe('With default ingress class config', () => {
    let s: Suite;
    before(async () => {
      s = await startSuite({ objects: [ingressClass(OTHER_CLASS, OTHER_CONTROLLER)] });
    });
    after(() => s.stop());

    test('should ignore Ingress with a different class annotation', async () => {
      const got = await serve(s, 'a1', [classed('foo', { annotation: 'testclass' }), classed('bar', { annotation: 'portico' })]);
      assert.deepEqual(got, { foo: 404, bar: 'echo' });
    });

    test('should ignore Ingress with different controller class', async () => {
      const got = await serve(s, 'a2', [classed('foo-1', { className: OTHER_CLASS }), classed('bar-1', { className: 'portico' })]);
      assert.deepEqual(got, { 'foo-1': 404, 'bar-1': 'echo' });
    });

    test('should accept both Ingresses with default IngressClassName and IngressClass annotation', async () => {
      const got = await serve(s, 'a3', [classed('foo-ok', { annotation: 'portico' }), classed('bar-ok', { className: 'portico' })]);
      assert.deepEqual(got, { 'foo-ok': 'echo', 'bar-ok': 'echo' });
    });

    test('should ignore Ingress without IngressClass configuration', async () => {
      const got = await serve(s, 'a4', [classed('foo-invalid', {}), classed('bar-valid', { className: 'portico' })]);
      assert.deepEqual(got, { 'foo-invalid': 404, 'bar-valid': 'echo' });
    });

    test('should delete Ingress when class is removed', async () => {
      assert.deepEqual(await serve(s, 'a5', [classed('foo-annotation', { annotation: 'portico' }), classed('foo-class', { className: 'portico' })]), { 'foo-annotation': 'echo', 'foo-class': 'echo' });
      assert.deepEqual(await serve(s, 'a5', [classed('foo-annotation', {}), classed('foo-class', {})]), { 'foo-annotation': 404, 'foo-class': 404 });
    });

    test('should serve Ingress when class is added', async () => {
      assert.deepEqual(await serve(s, 'a6', [classed('foo-no-annotation', {}), classed('foo-no-class', {})]), { 'foo-no-annotation': 404, 'foo-no-class': 404 });
      assert.deepEqual(await serve(s, 'a6', [classed('foo-no-annotation', { annotation: 'portico' }), classed('foo-no-class', { className: 'portico' })]), {
        'foo-no-annotation': 'echo',
        'foo-no-class': 'echo',
      });
    });

    test('should serve Ingress when class is updated between annotation and ingressClassName', async () => {
      assert.deepEqual(await serve(s, 'a7', [classed('foo-annotation2class', { annotation: 'portico' }), classed('foo-class2annotation', { className: 'portico' })]), {
        'foo-annotation2class': 'echo',
        'foo-class2annotation': 'echo',
      });
      assert.deepEqual(await serve(s, 'a7', [classed('foo-annotation2class', { className: 'portico' }), classed('foo-class2annotation', { annotation: 'portico' })]), {
        'foo-annotation2class': 'echo',
        'foo-class2annotation': 'echo',
      });
    });
  });

  void describe('With specific ingress-class flags', () => {
    let s: Suite;
    before(async () => {
      s = await startSuite({ objects: [ingressClass(OTHER_CLASS, OTHER_CONTROLLER)], args: ['--ingress-class=testclass', `--controller-class=${OTHER_CONTROLLER}`] });
    });
    after(() => s.stop());

    test('should ignore Ingress with no class and accept the correctly configured Ingresses', async () => {
      const got = await serve(s, 'b1', [classed('bar', {}), classed('foo', { annotation: 'testclass' }), classed('foobar123', { className: OTHER_CLASS })], { annotation: 'testclass' });
      assert.deepEqual(got, { bar: 404, foo: 'echo', foobar123: 'echo' });
    });
  });

  void describe('With watch-ingress-without-class flag', () => {
    let s: Suite;
    before(async () => {
      s = await startSuite({ objects: [ingressClass(OTHER_CLASS, OTHER_CONTROLLER)], args: ['--watch-ingress-without-class'] });
    });
    after(() => s.stop());

    test('should watch Ingress with no class and ignore ingress with a different class', async () => {
      const got = await serve(s, 'c1', [classed('bar', {}), classed('foo', { annotation: 'testclass123' })]);
      assert.deepEqual(got, { bar: 'echo', foo: 404 });
    });
  });

  void describe('With ingress-class-by-name flag', () => {
    let s: Suite;
    before(async () => {
      s = await startSuite({ objects: [ingressClass(OTHER_CLASS, OTHER_CONTROLLER)], args: [`--ingress-class=${OTHER_CLASS}`, '--ingress-class-by-name'] });
    });
    after(() => s.stop());

    test('should watch Ingress that uses the class name even if spec is different', async () => {
      const got = await serve(s, 'd1', [
        classed('validhostclassname', { className: OTHER_CLASS }),
        classed('validhostclassspec', { className: 'portico' }),
        classed('invalidannotation', { annotation: 'testclass123' }),
      ]);
      assert.deepEqual(got, { validhostclassname: 'echo', validhostclassspec: 'echo', invalidannotation: 404 });
    });
  });

  void describe('Without IngressClass Cluster scoped Permission', () => {
    // ingress-nginx there cannot read IngressClasses; in local mode that is a manifest folder holding none.
    let s: Suite;
    before(async () => {
      s = await startSuite({ args: ['--ingress-class=testclass'] });
      await s.dir.write('class.json', []);
    });
    after(() => s.stop());

    // No IngressClass exists, so the marker is served by the legacy annotation.
    const served = (file: string, ingresses: Ingress[]) => serve(s, file, ingresses, { annotation: 'testclass' });

    test('should watch Ingress with correct annotation', async () => {
      assert.deepEqual(await served('e1', [classed('foo', { annotation: 'testclass' })]), { foo: 'echo' });
    });

    test('should ignore Ingress with only IngressClassName', async () => {
      assert.deepEqual(await served('e2', [classed('noclassforyou', { className: 'portico' })]), { noclassforyou: 404 });
    });
  });
});
