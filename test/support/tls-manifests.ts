// Manifest builders for TLS tests (Secrets, Ingresses with spec.tls) and /proc helpers to watch nginx's workers.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Ingress, Secret } from '../../src/model/input.js';
import type { Pem } from './certs.js';
import { ingress, service, slice } from './objects.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');

export function tlsSecret(name: string, pem: Pick<Pem, 'cert' | 'key'>, namespace = 'default'): Secret {
  return { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', metadata: { name, namespace }, data: { 'tls.crt': b64(pem.cert), 'tls.key': b64(pem.key) } };
}

export function caSecret(name: string, caCert: string, namespace = 'default'): Secret {
  return { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name, namespace }, data: { 'ca.crt': b64(caCert) } };
}

/** An Ingress for `host` (path / to Service web) with optional spec.tls and annotations. */
export function hostIngress(name: string, host: string, opts: { tls?: { hosts?: string[]; secretName?: string }[]; annotations?: Record<string, string>; created?: string } = {}): Ingress {
  const ing = ingress(name, { host, className: 'portico', paths: [{ path: '/', type: 'Prefix', service: 'web', port: 80 }], ...opts });
  return opts.tls ? { ...ing, spec: { ...ing.spec, tls: opts.tls } } : ing;
}

/** The IngressClass, Service and EndpointSlice of the echo backend every test Ingress points at. */
export function webObjects(backendPort: number): unknown[] {
  return [
    { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'portico' }, spec: { controller: 'portico.dev/ingress-controller' } },
    service('web', 'default', [{ name: 'http', port: 80 }]),
    slice('web', backendPort, ['127.0.0.1']),
  ];
}

/** Writes the folder's single manifest file atomically (the source sees the whole new file or the old one). */
export function writeManifests(dir: string, objects: unknown[]): void {
  const file = join(dir, 'all.json');
  writeFileSync(`${file}.tmp`, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
  renameSync(`${file}.tmp`, file);
}

function children(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function comm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** The nginx master started by the portico process `porticoPid`, and its worker PIDs (sorted). */
export function nginxWorkers(porticoPid: number): { master: number | undefined; workers: number[] } {
  const master = children(porticoPid).find((p) => comm(p) === 'nginx');
  return { master, workers: master === undefined ? [] : children(master).sort((a, b) => a - b) };
}
