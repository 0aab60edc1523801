// Small builders of Kubernetes objects for tests (plain objects, as the API or a manifest gives them).
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Ingress, IngressClass, ModelOptions, Service } from '../../src/model/input.js';
import type { RenderOptions } from '../../src/render/nginx-conf.js';

/** The model options of a Portico with default flags: its own class, no default backend, round robin. */
export const MODEL_OPTIONS: ModelOptions = {
  controllerClass: 'portico.dev/ingress-controller',
  ingressClass: 'portico',
  watchIngressWithoutClass: false,
  defaultBackendService: undefined,
  loadBalance: 'round_robin',
};

/** Render options for a test that reads nginx.conf: the default ports, placeholder folders, one worker. */
export const RENDER_OPTIONS: RenderOptions = {
  workDir: '/w',
  luaDir: '/l',
  httpPort: 80,
  httpsPort: 443,
  statusPort: 10246,
  defaultServerPort: undefined,
  listenAddress: '',
  user: undefined,
  workerProcesses: 1,
};

export interface PathSpec {
  path: string;
  type: 'Exact' | 'Prefix' | 'ImplementationSpecific';
  service: string;
  port?: number | string;
}

export function ingress(
  name: string,
  opts: {
    namespace?: string;
    host?: string;
    paths?: PathSpec[];
    className?: string;
    created?: string;
    annotations?: Record<string, string>;
    defaultBackend?: string;
    rules?: { host?: string; paths: PathSpec[] }[];
  },
): Ingress {
  const toPath = (p: PathSpec) => ({ path: p.path, pathType: p.type, backend: { service: { name: p.service, port: typeof p.port === 'string' ? { name: p.port } : { number: p.port ?? 80 } } } });
  const rules = opts.rules ?? (opts.paths ? [{ host: opts.host, paths: opts.paths }] : []);
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name, namespace: opts.namespace ?? 'default', creationTimestamp: opts.created ?? '2026-01-01T00:00:00Z', ...(opts.annotations ? { annotations: opts.annotations } : {}) },
    spec: {
      ...(opts.className !== undefined ? { ingressClassName: opts.className } : {}),
      ...(opts.defaultBackend ? { defaultBackend: { service: { name: opts.defaultBackend, port: { number: 80 } } } } : {}),
      rules: rules.map((r) => ({ ...(r.host ? { host: r.host } : {}), http: { paths: r.paths.map(toPath) } })),
    },
  };
}

export function service(name: string, namespace = 'default', ports: { name?: string; port: number; appProtocol?: string }[] = [{ name: 'http', port: 80 }]): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { ports } };
}

export interface EndpointSpec {
  ip: string;
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
}

export function slice(serviceName: string, port: number, endpoints: (string | EndpointSpec)[], opts: { namespace?: string; portName?: string; name?: string } = {}): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    addressType: 'IPv4',
    metadata: { name: opts.name ?? `${serviceName}-abc`, namespace: opts.namespace ?? 'default', labels: { 'kubernetes.io/service-name': serviceName } },
    ports: [{ name: opts.portName ?? 'http', port, protocol: 'TCP' }],
    endpoints: endpoints.map((e) => {
      const spec = typeof e === 'string' ? { ip: e } : e;
      const conditions = {
        ...(spec.ready !== undefined ? { ready: spec.ready } : {}),
        ...(spec.serving !== undefined ? { serving: spec.serving } : {}),
        ...(spec.terminating !== undefined ? { terminating: spec.terminating } : {}),
      };
      return { addresses: [spec.ip], conditions };
    }),
  };
}

export function ingressClass(name: string, controller = 'portico.dev/ingress-controller', isDefault = false): IngressClass {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: { name, ...(isDefault ? { annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } } : {}) },
    spec: { controller },
  };
}
