// ingress-nginx e2e settings/disable_catch_all.go: with --disable-catch-all an Ingress that has a spec.defaultBackend is
// ignored whole (its rules too), so the catch-all server stays Portico's default backend.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ing, startSuite, type Suite } from '../harness.js';

type Ingress = ReturnType<typeof ing>;

/** `base` with spec.defaultBackend to the echo Service, and without rules when `rules` is false. */
function withDefaultBackend(base: Ingress, rules: boolean): Ingress {
  const spec: Record<string, unknown> = { ...base.spec, defaultBackend: { service: { name: 'echo', port: { number: 80 } } } };
  if (!rules) delete spec['rules'];
  return { ...base, spec };
}

void describe('settings/disable_catch_all.go', () => {
  let s: Suite;
  /** 'echo' when the echo backend answered, else the status. */
  const answer = async (host: string) => {
    const r = await s.get(host, '/');
    return r.status === 200 && r.headers['x-backend'] === 'echo' ? 'echo' : r.status;
  };
  /** Writes the Ingresses and a marker Ingress in one file (taken in one snapshot), and waits for the marker. */
  let puts = 0;
  const put = async (file: string, ingresses: Ingress[]) => {
    // A new marker each time: an old one is served already.
    const marker = `marker-${file}-${++puts}`;
    await s.put(`${file}.json`, [...ingresses, ing(marker, marker)], async () => (await answer(marker)) === 'echo');
  };
  before(async () => {
    s = await startSuite({ args: ['--disable-catch-all=true'] });
  });
  after(() => s.stop());

  test('should ignore catch all Ingress with backend', async () => {
    await put('t1', [withDefaultBackend(ing('catch-all', undefined), false), ing('foo', 'foo')]);
    assert.equal(await answer('foo'), 'echo');
    assert.equal(await answer('not-a-known-host'), 404);
    await put('t1', []);
  });

  test('should ignore catch all Ingress with backend and rules', async () => {
    await put('t2', [withDefaultBackend(ing('foo', 'foo'), true)]);
    assert.equal(await answer('not-a-known-host'), 404);
    assert.equal(await answer('foo'), 404);
    await put('t2', []);
  });

  test('should delete Ingress updated to catch-all', async () => {
    await put('t3', [ing('foo', 'foo')]);
    assert.equal(await answer('foo'), 'echo');
    await put('t3', [withDefaultBackend(ing('foo', 'foo'), false)]);
    assert.equal(await answer('foo'), 404);
    assert.equal(await answer('not-a-known-host'), 404);
    await put('t3', []);
  });

  test('should allow Ingress with rules', async () => {
    await put('t4', [ing('not-catch-all', 'foo')]);
    assert.equal(await answer('foo'), 'echo');
  });
});
