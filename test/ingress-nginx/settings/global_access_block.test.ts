// ingress-nginx e2e settings/global_access_block.go: block-cidrs, block-user-agents and block-referers answer 403.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ing, startSuite, type Suite } from '../harness.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/68.0.3440.106 Safari/537.36';

void describe('settings/global_access_block.go', () => {
  let s: Suite;
  const host = 'global-access-block';
  const status = async (headers: Record<string, string> = {}) => (await s.get(host, '/', { headers })).status;
  before(async () => {
    s = await startSuite();
    await s.put('ingresses.json', [ing(host, host)], async () => (await status()) === 200);
  });
  after(() => s.stop());

  test('should block CIDRs defined in the ConfigMap', async () => {
    // The test client is 127.0.0.1 here (a pod address of 10.0.0.0/8 upstream), so loopback joins the list.
    await s.config({ 'block-cidrs': '172.16.0.0/12,192.168.0.0/16,10.0.0.0/8,127.0.0.0/8' }, async () => (await status()) === 403);
    assert.equal(await status(), 403);
    await s.config({ 'block-cidrs': '172.16.0.0/12,192.168.0.0/16,10.0.0.0/8' }, async () => (await status()) === 200);
    assert.equal(await status(), 200);
  });

  test('should block User-Agents defined in the ConfigMap', async () => {
    await s.config({ 'block-user-agents': '~*chrome\\/68\\.0\\.3440\\.106\\ safari\\/537\\.36,AlphaBot' }, async () => (await status({ 'user-agent': 'AlphaBot' })) === 403);
    assert.equal(await status({ 'user-agent': CHROME }), 403);
    assert.equal(await status({ 'user-agent': 'AlphaBot' }), 403);
    assert.equal(await status({ 'user-agent': 'AlphaBot1' }), 200);
    assert.equal(await status({ 'user-agent': 'Mozilla/5.0 Chrome/69.0 Safari/537.36' }), 200);
  });

  test('should block Referers defined in the ConfigMap', async () => {
    await s.config({ 'block-referers': '~*example\\.com,qwerty' }, async () => (await status({ referer: 'qwerty' })) === 403);
    assert.equal(await status({ referer: 'https://www.example.com/' }), 403);
    assert.equal(await status({ referer: 'qwerty' }), 403);
    assert.equal(await status({ referer: 'qwerty1' }), 200);
    assert.equal(await status({ referer: 'https://www.portico.test/' }), 200);
  });
});
