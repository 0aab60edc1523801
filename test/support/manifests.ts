// Writes Kubernetes objects as manifest files (YAML or a JSON List) into folders for local-mode tests.
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Backend } from './backends.js';
import type { ConfigMap } from '../../src/model/input.js';
import { ingressClass, service, slice } from './objects.js';

export async function manifestDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'portico-manifests-'));
}

/** Writes objects as one multi-document YAML file, atomically (write + rename, as kubectl-style tools do). */
export async function writeManifests(dir: string, file: string, objects: readonly unknown[]): Promise<void> {
  const text = objects.map((o) => stringify(o)).join('---\n');
  const tmp = join(dir, `.${file}.tmp`);
  await writeFile(tmp, text);
  await rename(tmp, join(dir, file));
}

/**
 * A Service named `name` and one EndpointSlice per backend: every backend is 127.0.0.1 on its own port, and the
 * ports of an EndpointSlice apply to all of its endpoints.
 */
export function serviceFor(name: string, backends: readonly Backend[], opts: { namespace?: string; ready?: boolean } = {}): unknown[] {
  const namespace = opts.namespace ?? 'default';
  return [service(name, namespace), ...backends.map((b, i) => slice(name, b.port, [{ ip: '127.0.0.1', ready: opts.ready ?? true }], { namespace, name: `${name}-${i}` }))];
}

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

export async function manifestFolder(): Promise<ManifestDir> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-manifests-'));
  const write = async (file: string, objects: readonly unknown[]): Promise<void> => {
    const tmp = join(dir, `.${file}.tmp`);
    await writeFile(tmp, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
    await rename(tmp, join(dir, file));
  };
  await write('class.json', [ingressClass('portico')]);
  return { dir, write, remove: () => rm(dir, { recursive: true, force: true }) };
}
