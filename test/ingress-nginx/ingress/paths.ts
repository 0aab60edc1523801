// Shared by the ingress/pathtype_* files: Ingresses whose paths go to echo backends named after them, so the
// answer's id tells which path matched (ingress-nginx's tests mark the match with a header from a snippet instead).
import { backendObjects } from '../../support/manifests.js';
import type { Backend } from '../../support/backends.js';
import { echoed, startEcho, startSuite, type Suite } from '../harness.js';

export interface PathSuite {
  readonly s: Suite;
  /** The id of the backend that answered `path` on `host`, or the status when none did. */
  who(host: string, path: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startPathSuite(ids: readonly string[]): Promise<PathSuite> {
  const backends: Backend[] = [];
  for (const id of ids) backends.push(await startEcho(id));
  const s = await startSuite({ objects: backends.flatMap((b) => backendObjects(b.id, b.port)) });
  return {
    s,
    who: async (host, path) => {
      const r = await s.get(host, path);
      return r.status === 200 ? echoed(r).id : String(r.status);
    },
    stop: async () => {
      await s.stop();
      for (const b of backends) await b.close();
    },
  };
}
