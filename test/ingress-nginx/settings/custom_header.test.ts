// ingress-nginx e2e settings/custom_header.go: add-headers names a ConfigMap whose entries every answer carries.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { configMap } from '../../support/manifests.js';
import { ing, startSuite, type Suite } from '../harness.js';

void describe('settings/custom_header.go', () => {
  let s: Suite;
  const host = 'custom-header';
  before(async () => {
    s = await startSuite({
      objects: [
        configMap('add-headers-configmap', { 'X-A-Custom-Header': 'customHeaderValue' }),
        configMap('add-headers-configmap-two', { 'X-First': 'Prepare for trouble!', 'X-Second': 'And make it double!' }),
      ],
    });
    await s.put('ingresses.json', [ing(host, host)], async () => (await s.get(host, '/')).status === 200);
  });
  after(() => s.stop());

  test('Add a custom header', async () => {
    await s.config({ 'add-headers': 'default/add-headers-configmap' }, async () => (await s.get(host, '/')).headers['x-a-custom-header'] !== undefined);
    const r = await s.get(host, '/');
    assert.equal(r.status, 200);
    assert.equal(r.headers['x-a-custom-header'], 'customHeaderValue');
  });

  test('Add multiple custom headers', async () => {
    await s.config({ 'add-headers': 'default/add-headers-configmap-two' }, async () => (await s.get(host, '/')).headers['x-first'] !== undefined);
    const r = await s.get(host, '/');
    assert.equal(r.status, 200);
    assert.equal(r.headers['x-first'], 'Prepare for trouble!');
    assert.equal(r.headers['x-second'], 'And make it double!');
  });
});
