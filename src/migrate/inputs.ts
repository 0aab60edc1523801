// What migrate-check reads: the objects (a folder through local mode's source, or the API through the controller's)
// and the Deployments where ingress-nginx's controller may be found.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { Config } from '../config/config.js';
import type { Logger } from '../log.js';
import type { Snapshot } from '../model/input.js';
import { Store } from '../store/store.js';
import { ManifestSource } from '../sources/manifests.js';
import { KubeSource } from '../kube/source.js';
import { listDeployments } from '../kube/deployments.js';

/** A file of the folder migrate-check could not read (whole or in part): a finding, never a log line only. */
export interface Unreadable {
  readonly file: string;
  readonly errors: readonly string[];
}

/**
 * The snapshot a controller with `config` would start from (listed once, then the source is stopped), and the files
 * it could not read: their objects are missing from the snapshot.
 */
export async function loadSnapshot(config: Config, log: Logger): Promise<{ snapshot: Snapshot; unreadable: Unreadable[] }> {
  const store = new Store<Snapshot>();
  const manifests = config.manifests ? new ManifestSource(config.manifests, store, log.child({}, { level: 'silent' })) : undefined;
  const source = manifests ?? new KubeSource(config, store, log);
  try {
    await source.start();
  } finally {
    source.stop();
  }
  return { snapshot: store.snapshot(), unreadable: manifests?.unreadable() ?? [] };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deployments (apps/v1) in a value read from a manifest, `kind: *List` included. */
function deploymentsIn(value: unknown): Deployment[] {
  if (!isRecord(value)) return [];
  if (typeof value['kind'] === 'string' && value['kind'].endsWith('List') && Array.isArray(value['items'])) return value['items'].flatMap(deploymentsIn);
  if (value['kind'] !== 'Deployment' || value['apiVersion'] !== 'apps/v1') return [];
  const d = value as Deployment;
  return [{ ...d, metadata: { ...d.metadata, namespace: d.metadata?.namespace ?? 'default' } }];
}

/** The Deployments of the folder, or of the cluster; an API that refuses gives the reason instead. */
export async function loadDeployments(config: Config): Promise<{ items: Deployment[] } | { error: string }> {
  if (!config.manifests) return listDeployments(config, config.watchNamespace);
  const dir = config.manifests;
  const names = (await readdir(dir)).filter((n) => /\.(ya?ml|json)$/i.test(n) && !n.startsWith('.')).sort();
  const items: Deployment[] = [];
  for (const n of names) {
    const docs = parseAllDocuments(await readFile(join(dir, n), 'utf8'));
    for (const doc of Array.isArray(docs) ? docs : [docs]) if (doc.errors.length === 0) items.push(...deploymentsIn(doc.toJS()));
  }
  return { items };
}
