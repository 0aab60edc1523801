// ingress-nginx e2e settings/server_tokens.go: server-tokens decides whether answers carry a Server header.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ing, startSuite, type Suite } from '../harness.js';

void describe('settings/server_tokens.go', () => {
  let s: Suite;
  const host = 'server-tokens';
  before(async () => {
    s = await startSuite({ config: { 'server-tokens': 'false' } });
    await s.put('ingresses.json', [ing('tokens', host)], async () => (await s.get(host, '/')).status === 200);
  });
  after(() => s.stop());

  test('should not exists Server header in the response', async () => {
    const r = await s.get(host, '/');
    assert.equal(r.status, 200);
    assert.equal(r.headers['server'], undefined);
  });

  test('should exists Server header in the response when is enabled', async () => {
    await s.config({ 'server-tokens': 'true' }, async () => /^nginx\/\d/.test(String((await s.get(host, '/')).headers['server'])));
    assert.match(String((await s.get(host, '/')).headers['server']), /^nginx\/\d+\.\d+/);
  });
});
