// `portico render`: the nginx.conf a manifest folder produces, then its route table as comments, without starting
// anything. It loads only the folder source and the pure pipeline (not the Kubernetes client, nginx or the server).
import type { Config } from '../config/config.js';
import type { Logger } from '../log.js';
import type { Snapshot } from '../model/input.js';
import { describeProblem } from '../model/problems.js';
import { AnnotationStage } from '../pipeline/annotations.js';
import { buildAndRender, renderOptions } from '../pipeline/build.js';
import { ManifestSource } from '../sources/manifests.js';
import { Store } from '../store/store.js';
import { withRouteTable } from '../inspect/route-table.js';

export async function renderOnce(config: Config & { manifests: string }, log: Logger): Promise<string> {
  // a store for one build: its objects are not re-made compact for a long life, nor copied and frozen (store.ts)
  const store = new Store<Snapshot>({ compact: 'one-shot' });
  const source = new ManifestSource(config.manifests, store, log);
  await source.readOnce();
  // One build and no next one: run as a trial (nothing kept for a later sync), so no render memo keys are made.
  const { model, conf } = buildAndRender(new AnnotationStage(config, log), store.snapshot(), config, renderOptions(config, undefined), true);
  for (const p of model.problems) log.warn(describeProblem(p));
  return withRouteTable(conf.text, conf.routes ?? '');
}
