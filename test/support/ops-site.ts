// A small site for the inspector and dashboard tests: TLS, a backend without endpoints, a not-ready endpoint, a Warning.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBackend, type Backend } from './backends.js';
import { makeCert, type Pem } from './certs.js';
import { ingress, ingressClass, service, slice } from './objects.js';
import { manifestDir, writeManifests } from './manifests.js';
import { tlsSecret } from './tls-manifests.js';
import { get, startPortico, until, type Running } from './portico.js';

export interface OpsSite {
  readonly portico: Running;
  readonly backend: Backend;
  /** The shop.test certificate and key (the key must never be shown). */
  readonly pem: Pem;
  stop(): Promise<number | null>;
}

/**
 * shop.test (TLS, / → web, /down → a Service without endpoints), api.test (one ready, one not-ready endpoint), a bad
 * annotation, legacy.test (a server alias: a server block, where the others are routed by the Lua route table).
 */
export async function startOpsSite(extraFlags: string[] = []): Promise<OpsSite> {
  const backend = await startBackend('web');
  const certDir = await mkdtemp(join(tmpdir(), 'portico-ops-certs-'));
  const ca = makeCert(certDir, 'Portico Test CA', { isCa: true, days: 365 });
  const pem = makeCert(certDir, 'shop.test', { sans: ['shop.test'], ca, days: 30 });
  const dir = await manifestDir();
  const shop = ingress('shop', {
    className: 'portico',
    host: 'shop.test',
    paths: [
      { path: '/', type: 'Prefix', service: 'web' },
      { path: '/down', type: 'Prefix', service: 'gone' },
    ],
  });
  await writeManifests(dir, 'site.yaml', [
    ingressClass('portico'),
    service('web'),
    slice('web', backend.port, ['127.0.0.1']),
    service('gone'),
    service('api'),
    slice('api', backend.port, [
      { ip: '127.0.0.1', ready: true },
      { ip: '127.0.0.2', ready: false },
    ]),
    tlsSecret('shop-tls', pem),
    { ...shop, spec: { ...shop.spec, tls: [{ hosts: ['shop.test'], secretName: 'shop-tls' }] } },
    ingress('api', { className: 'portico', host: 'api.test', paths: [{ path: '/v1', type: 'Exact', service: 'api' }] }),
    // server-alias is a server-level setting: legacy.test keeps a server block (the others are in the route table)
    ingress('legacy', {
      className: 'portico',
      host: 'legacy.test',
      paths: [{ path: '/', type: 'Prefix', service: 'web' }],
      annotations: { 'nginx.ingress.kubernetes.io/server-alias': 'old.legacy.test' },
    }),
    // An allow list fails closed (docs/adr/0016): the Ingress is skipped. (A bad load-balance is served without it.)
    ingress('bad', {
      className: 'portico',
      host: 'bad.test',
      paths: [{ path: '/', type: 'Prefix', service: 'web' }],
      annotations: { 'nginx.ingress.kubernetes.io/whitelist-source-range': 'everyone' },
    }),
  ]);
  const portico = await startPortico(['--manifests', dir, ...extraFlags]);
  await until('api.test served', async () => (await get(portico.http, 'api.test', '/v1')).status === 200);
  return {
    portico,
    backend,
    pem,
    stop: async () => {
      const code = await portico.stop();
      await backend.close();
      await rm(dir, { recursive: true, force: true });
      await rm(certDir, { recursive: true, force: true });
      return code;
    },
  };
}
