// ingress-nginx e2e annotations/redirect.go: permanent-redirect and permanent-redirect-code.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, ing, startSuite, type Suite } from '../harness.js';

const URL_TO = 'http://redirect.example.com';

void describe('annotations/redirect.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite();
    await s.put(
      'ingresses.json',
      [
        ing('standard', 'redirect', { path: '/something', annotations: ann({ 'permanent-redirect': URL_TO }) }),
        ing('custom', 'redirect2', { path: '/something', annotations: ann({ 'permanent-redirect': URL_TO, 'permanent-redirect-code': '308' }) }),
      ],
      async () => (await s.get('redirect2', '/something')).status === 308,
    );
  });
  after(() => s.stop());

  test('should respond with a standard redirect code', async () => {
    const r = await s.get('redirect', '/something');
    assert.equal(r.status, 301);
    assert.equal(r.headers['location'], URL_TO);
  });

  test('should respond with a custom redirect code', async () => {
    const r = await s.get('redirect2', '/something');
    assert.equal(r.status, 308);
    assert.equal(r.headers['location'], URL_TO);
  });
});
