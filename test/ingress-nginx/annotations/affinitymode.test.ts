// ingress-nginx e2e annotations/affinitymode.go: affinity-mode balanced with the session-cookie-* annotations of the
// upstream test: the Ingress is served and its clients get the affinity cookie.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serviceFor } from '../../support/manifests.js';
import { ann, ing, startEcho, startSuite, type Suite } from '../harness.js';
import type { Backend } from '../../support/backends.js';

void describe('annotations/affinitymode.go', () => {
  let s: Suite;
  const echoes: Backend[] = [];
  const host = 'affinity-mode-balance.com';
  const annotations = ann({
    affinity: 'cookie',
    'session-cookie-name': 'hello-cookie',
    'session-cookie-expires': '172800',
    'session-cookie-max-age': '172800',
    'ssl-redirect': 'false',
    'affinity-mode': 'balanced',
    'session-cookie-hash': 'sha1',
  });
  before(async () => {
    for (let i = 0; i < 5; i++) echoes.push(await startEcho(`affinitybalanceecho-${i}`));
    s = await startSuite();
    await s.put(
      'affinitymode.json',
      [...serviceFor('affinitybalanceecho', echoes), ing(host, host, { service: 'affinitybalanceecho', annotations })],
      async () => (await s.get(host, '/')).status === 200,
    );
  });
  after(async () => {
    await s.stop();
    for (const e of echoes) await e.close();
  });

  test('Balanced affinity mode should balance', async () => {
    const first = await s.get(host, '/');
    assert.equal(first.status, 200);
    const cookie = (first.headers['set-cookie'] ?? []).find((c) => c.startsWith('hello-cookie='));
    assert.ok(cookie, 'the affinity cookie is set');
    assert.match(cookie, /Max-Age=172800/);
    // With its cookie the client stays on the endpoint that answered first.
    const pinned = String(first.headers['x-backend']);
    for (let i = 0; i < 5; i++) {
      const r = await s.get(host, '/', { headers: { cookie: cookie.split(';')[0] ?? '' } });
      assert.equal(r.headers['x-backend'], pinned);
    }
  });
});
