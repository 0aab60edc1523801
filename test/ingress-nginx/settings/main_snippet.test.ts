// ingress-nginx e2e settings/main_snippet.go: the ConfigMap's main-snippet goes into the main context of the
// nginx.conf nginx runs. The upstream value is a comment, which changes no answer: it is read from that file, and
// the sync that brought it is seen to land (a host added with it is served). Under --snippet-mode=safe (the default)
// the main context allows no directive at all (docs/adr/0012): one is refused with a Warning naming the key.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { until } from '../../support/portico.js';
import { ing, startSuite, type Suite } from '../harness.js';

void describe('settings/main_snippet.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite();
  });
  after(() => s.stop());

  test('should add value of main-snippet setting to nginx config', async () => {
    const conf = () => readFile(join(s.portico.workDir, 'nginx.conf'), 'utf8');
    await s.config({ 'main-snippet': '# main snippet' });
    await s.put('ingress.json', [ing('main', 'main-snippet.test')], async () => (await s.get('main-snippet.test', '/')).status === 200);
    await until('the comment in the running nginx.conf', async () => (await conf()).includes('\n# main snippet\n'), 10_000);
    // in the main context: before the events and http blocks
    const text = await conf();
    assert.ok(text.indexOf('\n# main snippet\n') < text.indexOf('\nhttp {'));
    assert.ok(!s.portico.output.some((l) => l.includes('data.main-snippet')), 'no Warning on main-snippet');
    // a directive in the main context is off the safe allowlist: refused with a Warning, the comment gone with it
    await s.config({ 'main-snippet': '# main snippet\nworker_rlimit_nofile 4096;' });
    await until('a Warning naming main-snippet', () => s.portico.output.some((l) => l.includes('data.main-snippet') && l.includes('worker_rlimit_nofile')), 10_000);
    assert.equal((await s.get('main-snippet.test', '/')).status, 200);
  });
});
