// Public surface of the Kubernetes API server double used by Portico's tests.
export { ApiServerDouble, type ApiServerDoubleOptions } from './server.js';
export type { FaultSpec, RequestMatch, RequestRecord } from './faults.js';
export type { KubeObject, ObjectMeta } from './object.js';
export { KINDS, type KindInfo } from './kinds.js';
