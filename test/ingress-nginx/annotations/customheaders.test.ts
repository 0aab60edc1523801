// ingress-nginx e2e annotations/customheaders.go: custom-headers adds the headers of a ConfigMap to every answer,
// once global-allowed-response-headers lists their names.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { configMap } from '../../support/manifests.js';
import { ann, echoed, ing, startSuite, type Suite } from '../harness.js';

void describe('annotations/customheaders.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite({
      config: { 'global-allowed-response-headers': 'My-Custom-Header,My-Custom-Header-Dollar' },
      objects: [configMap('custom-headers', { 'My-Custom-Header': '42', 'My-Custom-Header-Dollar': '$remote_addr' }), configMap('custom-headers-plain', { 'My-Custom-Header': '42' })],
    });
  });
  after(() => s.stop());

  test('should return status code 200 when no custom-headers is configured', async () => {
    const host = 'plain.custom-headers.test';
    await s.put('plain.json', [ing('plain', host)], async () => (await s.get(host, '/')).status === 200);
    const r = await s.get(host, '/');
    assert.equal(r.status, 200);
    assert.equal(echoed(r).headers['host'], host);
  });

  test('should return status code 503 when custom-headers is configured with an invalid secret', async () => {
    // Deliberate: a custom-headers ConfigMap that does not exist refuses the Ingress with a Warning (404, the default
    // backend) where ingress-nginx served the path with 503.
    const host = 'missing.custom-headers.test';
    await s.put(
      'missing.json',
      [ing('missing', host, { annotations: ann({ 'custom-headers': 'default/no-such-configmap' }) }), ing('missing-marker', `marker.${host}`)],
      async () => (await s.get(`marker.${host}`, '/')).status === 200,
    );
    assert.equal((await s.get(host, '/')).status, 404);
    assert.ok(s.portico.output.some((l) => l.includes('"level":40') && l.includes('no-such-configmap')));
  });

  test(`should set "more_set_headers 'My-Custom-Header' '42';" when custom-headers are set`, async () => {
    const host = 'set.custom-headers.test';
    await s.put('set.json', [ing('set', host, { annotations: ann({ 'custom-headers': 'default/custom-headers-plain' }) })], async () => (await s.get(host, '/')).headers['my-custom-header'] === '42');
    const r = await s.get(host, '/');
    assert.equal(r.status, 200);
    assert.equal(r.headers['my-custom-header'], '42');
    // Deliberate: a value with '$' ("$remote_addr", sent as text by ingress-nginx) refuses the Ingress, naming the key.
    const dollar = 'dollar.custom-headers.test';
    await s.put(
      'dollar.json',
      [ing('dollar', dollar, { annotations: ann({ 'custom-headers': 'default/custom-headers' }) }), ing('dollar-marker', `marker.${dollar}`)],
      async () => (await s.get(`marker.${dollar}`, '/')).status === 200,
    );
    assert.equal((await s.get(dollar, '/')).status, 404);
    assert.ok(s.portico.output.some((l) => l.includes('"level":40') && l.includes('My-Custom-Header-Dollar')));
  });
});
