// Writes Kubernetes objects as YAML manifest files for local-mode tests.
import { mkdtemp, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Backend } from './backends.js';
import { service, slice } from './objects.js';

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
  return [
    service(name, namespace),
    ...backends.map((b, i) => slice(name, b.port, [{ ip: '127.0.0.1', ready: opts.ready ?? true }], { namespace, name: `${name}-${i}` })),
  ];
}
