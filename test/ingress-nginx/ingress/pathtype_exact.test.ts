// ingress-nginx e2e ingress/pathtype_exact.go: an Exact path wins its own path; a Prefix of the same path takes the rest.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ing } from '../harness.js';
import { startPathSuite, type PathSuite } from './paths.js';

void describe('ingress/pathtype_exact.go', () => {
  let p: PathSuite;
  const host = 'exact.path';
  before(async () => {
    p = await startPathSuite(['exact', 'prefix', 'duplicated']);
    await p.s.put(
      'ingresses.json',
      [
        ing('exact', host, { path: '/exact', type: 'Exact', service: 'exact' }),
        ing('exact-suffix', host, { path: '/exact', type: 'Prefix', service: 'prefix', created: '2026-01-01T00:00:01Z' }),
        // A later Ingress with the same Prefix path: the older one keeps it.
        ing('duplicated-prefix', host, { path: '/exact', type: 'Prefix', service: 'duplicated', created: '2026-01-01T00:00:02Z' }),
      ],
      async () => (await p.who(host, '/exact')) === 'exact' && (await p.who(host, '/exact/suffix')) === 'prefix',
    );
  });
  after(() => p.stop());

  test('should choose exact location for /exact', async () => {
    assert.equal(await p.who(host, '/exact'), 'exact');
    assert.equal(await p.who(host, '/exact/suffix'), 'prefix');
  });
});
