// Public surface of the Kubernetes API server double used by Portico's tests.
//
// Usage (drive it only through @kubernetes/client-node, as the controller does):
//   const api = new ApiServerDouble({ bookmarkIntervalMs: 0 });
//   await api.start();                       t.after(() => api.stop());
//   const kc = new KubeConfig(); kc.loadFromString(api.kubeconfig());   // or --kubeconfig await api.writeKubeconfig()
//   api.put({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'web' }, spec: { ... } });
//   ... api.dropWatches(), api.expireResourceVersions(), api.stopAcceptingConnections(), api.restart(),
//   api.failRequests({ kind: 'Ingress', subresource: 'status' }, { code: 500 }), api.writes('Ingress') ...
export { ApiServerDouble, type ApiServerDoubleOptions } from './server.js';
export type { RequestRecord } from './faults.js';
export type { KubeObject } from './object.js';
