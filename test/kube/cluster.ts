// A small "cluster" for the kube tests: the API server double, echo backends, and builders of the objects they need.
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ApiServerDouble, type KubeObject } from '../support/apiserver/index.js';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress, ingressClass, service, slice } from '../support/objects.js';
import { get, startPortico, until, who, type Running } from '../support/portico.js';

export interface Cluster {
  readonly api: ApiServerDouble;
  readonly kubeconfig: string;
  readonly backends: ReadonlyMap<string, Backend>;
  /** Starts Portico against the double with extra flags (and environment, e.g. POD_NAME). */
  portico(args?: string[], opts?: Parameters<typeof startPortico>[1]): Promise<Running>;
  /** Stops every Portico (SIGTERM), the backends and the double; returns Portico's exit codes. */
  stop(): Promise<(number | null)[]>;
}

/** The double's put() takes its own object type; the builders give Kubernetes-typed ones of the same shape. */
export function put(api: ApiServerDouble, obj: unknown): void {
  api.put(obj as KubeObject);
}

export function namespace(name: string, labels: Record<string, string> = {}): unknown {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } };
}

/** A Service `name` in `ns` and its EndpointSlice pointing at the backend with the same id. */
export function serviceObjects(name: string, backend: Backend, ns = 'default'): unknown[] {
  return [service(name, ns), slice(name, backend.port, ['127.0.0.1'], { namespace: ns })];
}

/** An Ingress of class portico routing `host`/ to `svc`. */
export function route(name: string, host: string, svc: string, ns = 'default'): unknown {
  return ingress(name, { namespace: ns, className: 'portico', host, paths: [{ path: '/', type: 'Prefix', service: svc }] });
}

/** A double with namespace `default`, the portico IngressClass, and one Service per backend id (same name). */
export async function startCluster(ids: readonly string[], namespaces: readonly string[] = ['default']): Promise<Cluster> {
  const api = new ApiServerDouble({ bookmarkIntervalMs: 0, requireNamespaces: true });
  await api.start();
  const kubeconfig = await api.writeKubeconfig();
  const backends = new Map<string, Backend>();
  for (const id of ids) backends.set(id, await startBackend(id));
  for (const ns of namespaces) put(api, namespace(ns));
  put(api, ingressClass('portico'));
  for (const [id, b] of backends) for (const o of serviceObjects(id, b)) put(api, o);
  const running: Running[] = [];
  return {
    api,
    kubeconfig,
    backends,
    portico: async (args = [], opts = {}) => {
      const p = await startPortico(['--kubeconfig', kubeconfig, ...args], opts);
      running.push(p);
      return p;
    },
    stop: async () => {
      const codes: (number | null)[] = [];
      for (const p of running) codes.push(await p.stop());
      await Promise.all([...backends.values()].map((b) => b.close()));
      await api.stop();
      await rm(dirname(kubeconfig), { recursive: true, force: true });
      return codes;
    },
  };
}

/** Waits until `host`/ is answered by `expected` (a backend id or a status code). */
export async function serves(p: Running, host: string, expected: string, timeoutMs = 5000): Promise<number> {
  try {
    return await until(`${host} served by ${expected}`, async () => (await who(p.http, host, '/')) === expected, timeoutMs);
  } catch (err) {
    const tail = p.output
      .filter((l) => !l.includes('"nginx":'))
      .slice(-15)
      .join('\n');
    throw new Error(`${String(err)}; Portico's last log lines:\n${tail}`);
  }
}

export async function healthz(p: Running): Promise<number> {
  return (await get(p.healthz, 'localhost', '/healthz')).status;
}

/** Number of `sync` log lines so far (every sync logs one, noops at debug level). */
export function syncLines(p: Running): number {
  return p.output.filter((l) => l.includes('"msg":"sync"')).length;
}
