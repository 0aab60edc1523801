// Canary together with cookie affinity through real nginx (affinity-canary-behavior): the canary Ingress's own affinity
// applies to its backend (each side sets the cookie), and Portico decides the side per request, as ingress-nginx's
// `legacy`: a client holding its cookie is still split by canary-weight, and within each side the cookie keeps it on
// one endpoint. A canary with affinity and without `legacy` gets a Warning saying so.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBackend, type Backend } from '../support/backends.js';
import { manifestFolder, serviceFor, type ManifestDir } from '../support/manifests.js';
import { ingress } from '../support/objects.js';
import { get, startPortico, until, type Running } from '../support/portico.js';

const P = 'nginx.ingress.kubernetes.io';

void describe('canary with session affinity (real nginx)', () => {
  let dir: ManifestDir;
  const stable: Backend[] = [];
  const canary: Backend[] = [];
  let portico: Running;
  const sticky = { [`${P}/affinity`]: 'cookie', [`${P}/session-cookie-name`]: 'PIN' };

  before(async () => {
    dir = await manifestFolder();
    for (const id of ['s1', 's2']) stable.push(await startBackend(id));
    for (const id of ['c1', 'c2']) canary.push(await startBackend(id));
    await dir.write('backends.json', [...serviceFor('stable', stable), ...serviceFor('canary', canary)]);
    const path = (svc: string) => [{ path: '/', type: 'Prefix' as const, service: svc }];
    await dir.write('ingresses.json', [
      ingress('main', { host: 'app.test', className: 'portico', annotations: sticky, paths: path('stable'), created: '2026-01-01T00:00:00Z' }),
      ingress('canary', { host: 'app.test', className: 'portico', paths: path('canary'), created: '2026-01-02T00:00:00Z',
        annotations: { ...sticky, [`${P}/canary`]: 'true', [`${P}/canary-weight`]: '50' } }),
      ingress('legacy', { host: 'other.test', className: 'portico', paths: path('canary'), created: '2026-01-03T00:00:00Z',
        annotations: { ...sticky, [`${P}/canary`]: 'true', [`${P}/canary-weight`]: '50', [`${P}/affinity-canary-behavior`]: 'legacy' } }),
      ingress('other', { host: 'other.test', className: 'portico', paths: path('stable'), created: '2026-01-01T00:00:00Z' }),
    ]);
    portico = await startPortico(['--manifests', dir.dir]);
    await until('served', async () => (await get(portico.http, 'app.test', '/')).status === 200, 20_000);
  });

  after(async () => {
    await portico?.stop();
    for (const b of [...stable, ...canary]) await b.close();
    await dir?.remove();
  });

  void it('with its affinity cookie a client is split by weight between the sides (legacy), and pinned within each side', async () => {
    // One cookie per side: the first answer from each side sets PIN for that side's endpoint.
    const pins = new Map<string, string>();
    for (let i = 0; i < 200 && pins.size < 2; i += 1) {
      const r = await get(portico.http, 'app.test', '/');
      const side = String(r.headers['x-backend']).startsWith('c') ? 'canary' : 'stable';
      const cookie = /PIN=([^;]+)/.exec(String(r.headers['set-cookie'] ?? ''))?.[1];
      if (cookie !== undefined && !pins.has(side)) pins.set(side, cookie);
    }
    assert.equal(pins.size, 2, `both sides answered within 200 requests at weight 50: ${JSON.stringify([...pins])}`);
    for (const [, pin] of pins) {
      const seen = new Set<string>();
      for (let i = 0; i < 30; i += 1) seen.add(String((await get(portico.http, 'app.test', '/', { headers: { cookie: `PIN=${pin}` } })).headers['x-backend']));
      // legacy: the weight decides every request (30 coin flips all alike: 2 in 2^30); the cookie picks the endpoint in each side.
      assert.deepEqual([[...seen].filter((b) => b.startsWith('s')).length, [...seen].filter((b) => b.startsWith('c')).length], [1, 1], [...seen].join(','));
    }
  });

  void it('a canary with affinity and without affinity-canary-behavior: legacy gets a Warning saying what Portico does', () => {
    const warned = (name: string): boolean => portico.output.some((l) => l.includes(`default/${name}`) && l.includes(`${P}/affinity-canary-behavior`) && l.includes('legacy'));
    assert.deepEqual([warned('canary'), warned('legacy')], [true, false]);
  });
});
