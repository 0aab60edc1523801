// Writes test manifests (Ingress + Service + EndpointSlice per backend) into a folder for local-mode Portico.
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigMap } from '../../src/model/input.js';
import { ingressClass, service, slice } from './objects.js';

/** A Service named `name` on port 80 whose one endpoint is 127.0.0.1:`port`. */
export function backendObjects(name: string, port: number, namespace = 'default'): unknown[] {
  return [service(name, namespace), slice(name, port, ['127.0.0.1'], { namespace })];
}

export function configMap(name: string, data: Record<string, string>, namespace = 'default'): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

/** A manifest folder; `write` replaces one file atomically. */
export interface ManifestDir {
  readonly dir: string;
  write(file: string, objects: readonly unknown[]): Promise<void>;
  remove(): Promise<void>;
}

export async function manifestDir(): Promise<ManifestDir> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-manifests-'));
  const write = async (file: string, objects: readonly unknown[]): Promise<void> => {
    const tmp = join(dir, `.${file}.tmp`);
    await writeFile(tmp, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
    await rename(tmp, join(dir, file));
  };
  await write('class.json', [ingressClass('portico')]);
  return { dir, write, remove: () => rm(dir, { recursive: true, force: true }) };
}
