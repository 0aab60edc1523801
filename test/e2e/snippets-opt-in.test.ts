// Snippets follow ingress-nginx's opt-in, through real nginx: with allow-snippet-annotations at its
// default (false) no snippet annotation reaches nginx.conf, each is ignored with a Warning naming the key, and the
// Ingresses are served; the ConfigMap key set to "true" lets --snippet-mode (safe) apply them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startBackend, type Backend } from '../support/backends.js';
import { backendObjects, configMap, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { ingress } from '../support/objects.js';
import { get, startPortico, until, who, type Running } from '../support/portico.js';

const P = 'nginx.ingress.kubernetes.io';
// Each a safe-mode snippet with a sentinel: nothing of it may reach nginx.conf while snippets are off.
const SNIPPETS: Record<string, Record<string, string>> = {
  'loc.test': { [`${P}/configuration-snippet`]: 'add_header X-Sentinel-Location yes always;' },
  'srv.test': { [`${P}/server-snippet`]: 'add_header X-Sentinel-Server yes always;' },
  'auth.test': { [`${P}/auth-url`]: 'http://127.0.0.1:1/auth', [`${P}/auth-snippet`]: 'proxy_set_header X-Sentinel-Auth yes;' },
  'stream.test': { [`${P}/stream-snippet`]: 'proxy_timeout 17s;' },
};

describe('allow-snippet-annotations: off by default, the ConfigMap key turns snippets on (real nginx)', () => {
  let echo: Backend;
  let dir: ManifestDir;
  let portico: Running;
  const objects = (allow: string | undefined): unknown[] => [
    ...backendObjects('echo', echo.port),
    configMap('portico', allow === undefined ? { 'proxy-body-size': '1m' } : { 'allow-snippet-annotations': allow }, 'kube-system'),
    ...Object.entries(SNIPPETS).map(([host, annotations]) => ingress(host.split('.')[0] ?? host, { host, className: 'portico', annotations, paths: [{ path: '/', type: 'Prefix', service: 'echo' }] })),
  ];

  before(async () => {
    echo = await startBackend('echo');
    dir = await manifestFolder();
    await dir.write('objects.json', objects(undefined));
    portico = await startPortico(['--manifests', dir.dir, '--configmap', 'kube-system/portico']);
  });
  after(async () => {
    await portico?.stop();
    await echo?.close();
    await dir?.remove();
  });

  it('no snippet reaches nginx.conf; each is a Warning naming the key; the Ingresses are served', async () => {
    await until('loc.test served', async () => (await who(portico.http, 'loc.test', '/')) === 'echo');
    const conf = await readFile(join(portico.workDir, 'nginx.conf'), 'utf8');
    assert.doesNotMatch(conf, /X-Sentinel|proxy_timeout 17s/, 'no snippet text in nginx.conf');
    for (const host of ['loc.test', 'srv.test']) {
      const r = await get(portico.http, host, '/');
      assert.equal(r.status, 200, host);
      assert.equal(r.headers['x-sentinel-location'] ?? r.headers['x-sentinel-server'], undefined, `${host}: no snippet header`);
    }
    for (const key of ['configuration-snippet', 'server-snippet', 'auth-snippet', 'stream-snippet']) {
      assert.ok(
        portico.output.some((l) => l.includes(`${P}/${key}`) && l.includes('allow-snippet-annotations is true')),
        `a Warning names ${key} and the key that allows it`,
      );
    }
  });

  it('allow-snippet-annotations: "true" in the ConfigMap applies the safe snippets', async () => {
    await dir.write('objects.json', objects('true'));
    await until('the server snippet applies', async () => (await get(portico.http, 'srv.test', '/')).headers['x-sentinel-server'] === 'yes');
    assert.equal((await get(portico.http, 'loc.test', '/')).headers['x-sentinel-location'], 'yes');
    await dir.write('objects.json', objects('false'));
    await until('"false" turns them off again', async () => (await get(portico.http, 'srv.test', '/')).headers['x-sentinel-server'] === undefined);
  });
});
