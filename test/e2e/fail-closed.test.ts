// One bad value from one tenant costs its own Ingress only. Through real nginx, in local mode:
// the tenant beside it on the same host and on other hosts keep being served, /healthz stays 200, later changes
// apply, and deleting the bad Ingress leaves nothing held.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBackend, type Backend } from '../support/backends.js';
import { makeCert } from '../support/certs.js';
import { backendObjects, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { ingress } from '../support/objects.js';
import { get, startPortico, until, who, type Running } from '../support/portico.js';
import { BAD_VALUES, badObjects } from '../support/bad-values.js';

const tenant = (name: string, host: string, path: string, ns = 'default'): unknown =>
  ingress(name, { namespace: ns, className: 'portico', host, paths: [{ path, type: 'Prefix', service: 'victim' }] });

describe('one bad value costs its own Ingress only (local mode, real nginx)', () => {
  let victim: Backend;
  let dir: ManifestDir;
  let portico: Running;
  let certDir = '';
  let round = 0;

  before(async () => {
    victim = await startBackend('victim');
    dir = await manifestFolder();
    certDir = mkdtempSync(join(tmpdir(), 'portico-fc-'));
    await dir.write('victims.json', [
      ...backendObjects('victim', victim.port),
      ...backendObjects('victim', victim.port, 'evil'),
      tenant('shared-owner', 'shared.test', '/'),
      tenant('elsewhere', 'other.test', '/'),
    ]);
    portico = await startPortico(['--manifests', dir.dir]);
    await until('victims served', async () => (await who(portico.http, 'shared.test', '/')) === 'victim');
  });

  after(async () => {
    await portico?.stop();
    await victim?.close();
    await dir?.remove();
    rmSync(certDir, { recursive: true, force: true });
  });

  const servedAndHealthy = async (what: string): Promise<void> => {
    assert.equal(await who(portico.http, 'shared.test', '/'), 'victim', `${what}: the same host's other tenant`);
    assert.equal(await who(portico.http, 'other.test', '/'), 'victim', `${what}: another host`);
    const tail = (): string =>
      portico.output
        .filter((l) => !l.includes('"nginx":'))
        .slice(-8)
        .join('\n');
    assert.equal((await get(portico.healthz, 'localhost', '/healthz')).status, 200, `${what}: /healthz\n${tail()}`);
  };

  for (const c of BAD_VALUES) {
    test(`${c.name}: the bad Ingress is skipped with a warning; the rest serves and updates; deleting it restores all`, async () => {
      round += 1;
      const pem = makeCert(certDir, 'shared.test');
      const from = portico.output.length;
      const warned = (): boolean => portico.output.slice(from).some((l) => l.includes('evil/bad') && /"level":(40|50)/.test(l));
      await dir.write('bad.json', badObjects(c, pem));
      if (c.accepted) {
        await until(`${c.name} served`, async () => (await who(portico.http, 'shared.test', '/evil')) === 'victim', 5000);
        assert.equal(warned(), false, `${c.name} is valid: no warning`);
      } else {
        await until(`warning for ${c.name}`, warned, 10_000);
      }
      await servedAndHealthy(c.name);
      // A later change from anyone else still applies.
      await dir.write('later.json', [tenant('later', `later${round}.test`, '/')]);
      await until(`later${round}.test served`, async () => (await who(portico.http, `later${round}.test`, '/')) === 'victim', 5000);
      await servedAndHealthy(`${c.name}, after a later change`);
      // The bad Ingress is gone: its own path is free again for the owner's rules, everything serves.
      await dir.write('bad.json', []);
      await dir.write('later.json', [tenant('later', `gone${round}.test`, '/')]);
      await until(`gone${round}.test served`, async () => (await who(portico.http, `gone${round}.test`, '/')) === 'victim', 5000);
      await servedAndHealthy(`${c.name}, deleted`);
    });
  }
});
