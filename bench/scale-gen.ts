// bench/scale's cluster generator: N Ingresses over N/10 namespaces, as local-mode JSON files or API objects.
//
// Per Ingress: one host (`h<i>.scale.test`), 1-5 paths (Prefix and some Exact), one Service, one EndpointSlice with
// 1-20 endpoints; every 10th Ingress has spec.tls (a Secret of its own), every 5th one of five common annotation
// sets. Endpoint addresses are pod IPs (10.244.x.y) that nothing ever connects to, so the model, nginx.conf and the
// Lua payload have realistic sizes; only the *probe* Ingresses (one in every N/PROBES) point at the 127.0.0.1
// backends, and only they are ever requested. Deterministic: the same N gives the same cluster.
import type { EndpointSlice, Ingress, Secret, Service, Snapshot } from '../src/model/input.js';
import type { Store } from '../src/store/store.js';
import { ingress, ingressClass, service, slice, type PathSpec } from '../test/support/objects.js';
import { tlsSecret } from '../test/support/tls-manifests.js';
import type { Pem } from '../test/support/certs.js';

const P = 'nginx.ingress.kubernetes.io';
/** How many Ingresses are probed (requested) per cluster, spread evenly. */
export const PROBES = 50;

/** Five annotation sets seen in most clusters; each fits the rendered-location path. */
const COMMON: readonly Record<string, string>[] = [
  { [`${P}/proxy-body-size`]: '16m' },
  { [`${P}/proxy-read-timeout`]: '120', [`${P}/proxy-send-timeout`]: '120' },
  { [`${P}/ssl-redirect`]: 'false' },
  { [`${P}/enable-cors`]: 'true' },
  { [`${P}/proxy-buffering`]: 'off', [`${P}/proxy-connect-timeout`]: '10' },
];

/** One Ingress's objects, and where a probe may ask for it. */
export interface AppObjects {
  readonly index: number;
  readonly namespace: string;
  readonly host: string;
  readonly paths: readonly string[];
  readonly ingress: Ingress;
  readonly service: Service;
  readonly slice: EndpointSlice;
  readonly secret: Secret | undefined;
  readonly probe: boolean;
}

export interface Cluster {
  readonly n: number;
  readonly namespaces: number;
  readonly apps: readonly AppObjects[];
}

/** A small deterministic PRNG (mulberry32), so a cluster is the same in every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const nsOf = (i: number, namespaces: number): string => `team-${i % namespaces}`;
export const hostOf = (i: number): string => `h${i}.scale.test`;

/** The slice of app `i`: the probe backend's port on 127.0.0.1, or `count` pod IPs. */
export function appSlice(name: string, namespace: string, i: number, probePort: number | undefined, count: number): EndpointSlice {
  if (probePort !== undefined) return slice(name, probePort, ['127.0.0.1'], { namespace, name: `${name}-0` });
  const ips = Array.from({ length: count }, (_, k) => `10.${100 + k}.${(i >> 8) & 255}.${i & 255}`);
  return slice(name, 8080, ips, { namespace, name: `${name}-0` });
}

/** App `i`: Ingress, Service, EndpointSlice and (every 10th) a TLS Secret from the `certs` pool. */
export function makeApp(i: number, shape: { namespaces: number; probeEvery: number; probePorts: readonly number[]; certs: readonly Pem[] }, random: () => number): AppObjects {
  const { namespaces, probeEvery, probePorts, certs } = shape;
  const namespace = nsOf(i, namespaces);
  const name = `app-${i}`;
  const host = hostOf(i);
  const pathCount = 1 + Math.floor(random() * 5);
  const paths = Array.from({ length: pathCount }, (_, j) => (j === 0 ? '/' : `/api/v${j}`));
  const specs: PathSpec[] = paths.map((p, j) => ({ path: p, type: j === 3 ? 'Exact' : 'Prefix', service: name }));
  const annotations = i % 5 === 2 ? COMMON[((i / 5) % COMMON.length) | 0] : undefined;
  const tls = i % 10 === 0;
  const created = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  const base = ingress(name, { namespace, host, className: 'portico', created, paths: specs, ...(annotations ? { annotations } : {}) });
  const ing: Ingress = tls ? { ...base, spec: { ...base.spec, tls: [{ hosts: [host], secretName: `${name}-tls` }] } } : base;
  const probe = i % probeEvery === (probeEvery > 1 ? 1 : 0);
  const endpoints = 1 + Math.floor(random() * 20);
  const probePort = probe ? probePorts[i % probePorts.length] : undefined;
  return {
    index: i,
    namespace,
    host,
    paths,
    ingress: ing,
    service: service(name, namespace),
    probe,
    slice: appSlice(name, namespace, i, probePort, endpoints),
    secret: tls ? tlsSecret(`${name}-tls`, certs[i % certs.length]!, namespace) : undefined,
  };
}

/** The whole cluster for `n` Ingresses; probes use `probePorts` (127.0.0.1 backends) round robin. */
export function generate(n: number, probePorts: readonly number[], certs: readonly Pem[]): Cluster {
  const namespaces = Math.max(1, Math.floor(n / 10));
  const probeEvery = Math.max(1, Math.floor(n / PROBES));
  const random = rng(n);
  const apps = Array.from({ length: n }, (_, i) => makeApp(i, { namespaces, probeEvery, probePorts, certs }, random));
  return { n, namespaces, apps };
}

/** The objects of one namespace's file (every app whose namespace is `namespace`). */
export function namespaceObjects(apps: readonly AppObjects[]): unknown[] {
  return apps.flatMap((a) => [a.ingress, a.service, a.slice, ...(a.secret ? [a.secret] : [])]);
}

/** Puts the cluster's objects, and the IngressClass, into a store (the objects a controller's sources would list). */
export function storeCluster(store: Store<Snapshot>, c: Cluster): void {
  store.upsert('IngressClass', ingressClass('portico'));
  for (const a of c.apps) {
    store.upsert('Ingress', a.ingress);
    store.upsert('Service', a.service);
    store.upsert('EndpointSlice', a.slice);
    if (a.secret) store.upsert('Secret', a.secret);
  }
}

/** Local-mode files: one JSON List per namespace, plus the IngressClass. */
export function clusterFiles(c: Cluster): Map<string, unknown[]> {
  const files = new Map<string, unknown[]>([['class.json', [ingressClass('portico')]]]);
  const byNs = new Map<string, AppObjects[]>();
  for (const a of c.apps) byNs.set(a.namespace, [...(byNs.get(a.namespace) ?? []), a]);
  for (const [ns, apps] of byNs) files.set(`${ns}.json`, namespaceObjects(apps));
  return files;
}
