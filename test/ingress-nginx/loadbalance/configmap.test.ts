// ingress-nginx e2e loadbalance/configmap.go: the ConfigMap's load-balance is the algorithm of an Ingress that sets none
// (what Portico pushes to its Lua balancer, as /debug/backends shows it).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ing, startSuite, type Suite } from '../harness.js';

void describe('loadbalance/configmap.go', () => {
  let s: Suite;
  const host = 'load-balance.com';
  before(async () => {
    s = await startSuite({ config: { 'load-balance': 'ewma' } });
    await s.put('ingresses.json', [ing('lb', host)], async () => (await s.get(host, '/')).status === 200);
  });
  after(() => s.stop());

  test('should apply the configmap load-balance setting', async () => {
    const backends = JSON.parse(await (await fetch(`http://127.0.0.1:${s.portico.healthz}/debug/backends`)).text()) as unknown;
    const text = JSON.stringify(backends);
    assert.match(text, /default_echo_80/);
    assert.match(text, /"ewma"/);
    assert.doesNotMatch(text, /"round_robin"/);
  });
});
