// Canary together with cookie affinity through real nginx (affinity-canary-behavior): each side's affinity applies to
// its own backend, and the side a cookie came from keeps the client (sticky, ingress-nginx's default); with `legacy`
// the canary is decided per request whatever the cookie says, and the cookie picks the endpoint within the side.
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

  before(async () => {
    dir = await manifestFolder();
    for (const id of ['s1', 's2']) stable.push(await startBackend(id));
    for (const id of ['c1', 'c2']) canary.push(await startBackend(id));
    // Upstream settings belong to a Service (its oldest Ingress): the legacy host has Services of its own.
    await dir.write('backends.json', [...serviceFor('stable', stable), ...serviceFor('canary', canary), ...serviceFor('stable-l', stable), ...serviceFor('canary-l', canary)]);
    const path = (svc: string) => [{ path: '/', type: 'Prefix' as const, service: svc }];
    const pin = (extra: Record<string, string> = {}) => ({ [`${P}/affinity`]: 'cookie', [`${P}/session-cookie-name`]: 'PIN', ...extra });
    const legacy = { [`${P}/affinity-canary-behavior`]: 'legacy' };
    const weight = { [`${P}/canary`]: 'true', [`${P}/canary-weight`]: '50' };
    await dir.write('ingresses.json', [
      ingress('main', { host: 'app.test', className: 'portico', annotations: pin(), paths: path('stable'), created: '2026-01-01T00:00:00Z' }),
      ingress('canary', { host: 'app.test', className: 'portico', annotations: pin(weight), paths: path('canary'), created: '2026-01-02T00:00:00Z' }),
      ingress('main-l', { host: 'legacy.test', className: 'portico', annotations: pin(legacy), paths: path('stable-l'), created: '2026-01-01T00:00:00Z' }),
      ingress('canary-l', { host: 'legacy.test', className: 'portico', annotations: pin({ ...weight, ...legacy }), paths: path('canary-l'), created: '2026-01-02T00:00:00Z' }),
    ]);
    portico = await startPortico(['--manifests', dir.dir]);
    await until('served', async () => (await get(portico.http, 'app.test', '/')).status === 200 && (await get(portico.http, 'legacy.test', '/')).status === 200, 20_000);
  });

  after(async () => {
    await portico?.stop();
    for (const b of [...stable, ...canary]) await b.close();
    await dir?.remove();
  });

  /** One affinity cookie per side: the first answer from each side (with its Set-Cookie) within 200 requests. */
  async function pins(host: string): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (let i = 0; i < 200 && out.size < 2; i += 1) {
      const r = await get(portico.http, host, '/');
      const side = String(r.headers['x-backend']).startsWith('c') ? 'canary' : 'stable';
      const cookie = /PIN=([^;]+)/.exec(String(r.headers['set-cookie'] ?? ''))?.[1];
      if (cookie !== undefined && !out.has(side)) out.set(side, cookie);
    }
    assert.equal(out.size, 2, `both sides set their cookie within 200 requests at weight 50: ${JSON.stringify([...out])}`);
    return out;
  }

  /** The backends 30 requests holding `cookie` reach. */
  async function reached(host: string, cookie: string): Promise<string[]> {
    const seen = new Set<string>();
    for (let i = 0; i < 30; i += 1) seen.add(String((await get(portico.http, host, '/', { headers: { cookie: `PIN=${cookie}` } })).headers['x-backend']));
    return [...seen].sort();
  }

  void it('sticky (the default): a client stays on the side, and the endpoint, its cookie came from', async () => {
    for (const [side, cookie] of await pins('app.test')) {
      const seen = await reached('app.test', cookie);
      assert.equal(seen.length, 1, `${side}: ${seen.join(',')}`);
      assert.equal(seen[0]?.startsWith(side === 'canary' ? 'c' : 's'), true, `${side}: ${seen.join(',')}`);
    }
  });

  void it('legacy: the weight decides every request (30 alike: 2 in 2^30), the cookie picks one endpoint within each side', async () => {
    for (const [side, cookie] of await pins('legacy.test')) {
      const seen = await reached('legacy.test', cookie);
      assert.deepEqual([seen.filter((b) => b.startsWith('c')).length, seen.filter((b) => b.startsWith('s')).length], [1, 1], `${side}: ${seen.join(',')}`);
    }
  });
});
