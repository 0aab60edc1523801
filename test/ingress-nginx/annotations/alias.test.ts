// ingress-nginx e2e annotations/alias.go: server-alias answers for the aliased host as for the main one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, echoed, ing, startSuite, type Suite } from '../harness.js';

void describe('annotations/alias.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite();
    await s.put(
      'ingresses.json',
      [
        ing('plain', 'foo'),
        ing('aliased', 'foo2', { annotations: ann({ 'server-alias': 'bar2' }) }),
        ing('app-a', 'foo3', { path: '/app-a' }),
        ing('app-b', 'foo3', { path: '/app-b', annotations: ann({ 'server-alias': 'bar3' }) }),
      ],
      // every host of the sync: the route table's (foo) is pushed after the reload that serves the aliases' server blocks
      async () => (await s.get('bar3', '/app-a')).status === 200 && (await s.get('foo', '/')).status === 200,
    );
  });
  after(() => s.stop());

  test("should return status code 200 for host 'foo' and 404 for 'bar'", async () => {
    const r = await s.get('foo', '/');
    assert.equal(r.status, 200);
    assert.equal(echoed(r).headers['host'], 'foo');
    assert.equal((await s.get('bar', '/')).status, 404);
  });

  test("should return status code 200 for host 'foo' and 'bar'", async () => {
    for (const host of ['foo2', 'bar2']) {
      const r = await s.get(host, '/');
      assert.equal(r.status, 200);
      assert.equal(echoed(r).headers['host'], host);
    }
  });

  test('should return status code 200 for hosts defined in two ingresses, different path with one alias', async () => {
    for (const host of ['foo3', 'bar3']) {
      const r = await s.get(host, '/app-a');
      assert.equal(r.status, 200);
      assert.equal(echoed(r).headers['host'], host);
    }
  });
});
