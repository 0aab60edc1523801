// The head of a large first sync (src/controller/startup-head.ts): which Ingresses stand alone, and that the head's
// model serves each of their hosts exactly as the whole cluster's model does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFlags } from '../../src/config/flags.js';
import { createLogger } from '../../src/log.js';
import { AnnotationStage } from '../../src/pipeline/annotations.js';
import { buildAndRender, renderOptions } from '../../src/pipeline/build.js';
import { HEAD_INGRESSES, HEAD_MIN_INGRESSES, RENDERING, startupHead } from '../../src/controller/startup-head.js';
import { EMPTY_SNAPSHOT, type Ingress, type Snapshot } from '../../src/model/input.js';
import { ingress, ingressClass, service, slice } from '../support/objects.js';
import { makeCert } from '../support/certs.js';
import { caSecret } from '../support/tls-manifests.js';

const P = 'nginx.ingress.kubernetes.io';
const LIMITS = { stream: false, defaultBackendNamespace: undefined };

/** App `i` in namespace `ns-<i % 300>`: host `h<i>.test`, its Service and slice. */
function app(i: number, over: Partial<{ host: string; annotations: Record<string, string>; hostless: boolean }> = {}): { ing: Ingress; ns: string } {
  const ns = `ns-${i % 300}`;
  const paths = [{ path: '/', type: 'Prefix' as const, service: `app-${i}` }];
  const created = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  const ing = over.hostless
    ? ingress(`app-${i}`, { namespace: ns, className: 'portico', created, rules: [{ paths }] })
    : ingress(`app-${i}`, { namespace: ns, className: 'portico', created, host: over.host ?? `h${i}.test`, paths, ...(over.annotations ? { annotations: over.annotations } : {}) });
  return { ing, ns };
}

/**
 * `n` apps; among the first ones, Ingresses that must stay out of the head and the ones they would wrong: a newer
 * Ingress of another namespace on an older one's host, a canary, a server-alias naming another app's host, a www
 * twin, a wildcard, a rule without a host.
 */
function cluster(n: number): { snap: Snapshot; out: readonly string[] } {
  const special: Record<number, Parameters<typeof app>[1]> = {
    3: { host: 'h2.test' }, // shares app-2's host
    5: { host: 'h4.test', annotations: { [`${P}/canary`]: 'true', [`${P}/canary-weight`]: '50' } },
    7: { annotations: { [`${P}/server-alias`]: 'h8.test' } },
    9: { annotations: { [`${P}/from-to-www-redirect`]: 'true' } },
    11: { host: '*.test' },
    13: { hostless: true },
  };
  const apps = Array.from({ length: n }, (_, i) => app(i, special[i] ?? {}));
  const snap: Snapshot = {
    ...EMPTY_SNAPSHOT,
    ingressClasses: [ingressClass('portico')],
    ingresses: apps.map((a) => a.ing),
    services: apps.map((a, i) => service(`app-${i}`, a.ns)),
    endpointSlices: apps.map((a, i) => slice(`app-${i}`, 8080, [`10.0.${i >> 8}.${i & 255}`], { namespace: a.ns, name: `app-${i}-0` })),
  };
  return { snap, out: ['app-2', 'app-3', 'app-4', 'app-5', 'app-7', 'app-9', 'app-11', 'app-13'] };
}

const names = (s: Snapshot): Set<string> => new Set(s.ingresses.map((i) => i.metadata?.name ?? ''));

test('a cluster below the threshold, or with stream services or Gateways, is built whole', () => {
  assert.equal(startupHead(cluster(HEAD_MIN_INGRESSES - 1).snap, LIMITS), undefined);
  const { snap } = cluster(HEAD_MIN_INGRESSES);
  assert.notEqual(startupHead(snap, LIMITS), undefined);
  assert.equal(startupHead(snap, { ...LIMITS, stream: true }), undefined);
  const gateway = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'g', namespace: 'ns-0' }, spec: { gatewayClassName: 'c', listeners: [] } };
  assert.equal(startupHead({ ...snap, gateways: [gateway] }, LIMITS), undefined);
});

test('the head holds whole namespaces of Ingresses that stand alone, with those namespaces Services and slices', () => {
  const { snap, out } = cluster(HEAD_MIN_INGRESSES + 500);
  const head = startupHead(snap, LIMITS);
  assert.ok(head);
  const inHead = names(head);
  for (const name of out) assert.equal(inHead.has(name), false, `${name} must wait for the whole`);
  assert.ok(inHead.has('app-1') && inHead.has('app-6'), 'Ingresses that stand alone are in the head');
  assert.ok(head.ingresses.length >= HEAD_INGRESSES && head.ingresses.length < snap.ingresses.length);
  const spaces = new Set(head.ingresses.map((i) => i.metadata?.namespace));
  // every Ingress of a chosen namespace that stands alone is in the head, whatever its place in the list
  const alone = (i: Ingress): boolean => !out.includes(i.metadata?.name ?? '');
  const sorted = (l: readonly Ingress[]): string[] => l.map((i) => i.metadata?.name ?? '').sort();
  assert.deepEqual(sorted(head.ingresses), sorted(snap.ingresses.filter((i) => spaces.has(i.metadata?.namespace) && alone(i))));
  assert.ok(head.services.every((s) => spaces.has(s.metadata?.namespace)));
  assert.ok(head.endpointSlices.every((s) => spaces.has(s.metadata?.namespace)));
  assert.equal(head.services.length, snap.services.filter((s) => spaces.has(s.metadata?.namespace)).length);
  assert.deepEqual(head.secrets, snap.secrets);
  assert.deepEqual(head.ingressClasses, snap.ingressClasses);
});

test('the head model serves each of its hosts exactly as the whole cluster model does', () => {
  const config = parseFlags(['--manifests', '/nonexistent', '--enable-dynamic-routes'], {});
  const log = createLogger('silent');
  const build = (s: Snapshot): ReturnType<typeof buildAndRender> => buildAndRender(new AnnotationStage(config, log), s, config, renderOptions(config, undefined));
  const { snap } = cluster(HEAD_MIN_INGRESSES + 500);
  const head = startupHead(snap, LIMITS);
  assert.ok(head);
  const part = build(head);
  const whole = build(snap);
  const hosts = new Set(head.ingresses.map((i) => i.spec?.rules?.[0]?.host));
  const byHost = (m: typeof part.model): Map<string | undefined, unknown> => new Map(m.servers.filter((s) => hosts.has(s.host)).map((s) => [s.host, s]));
  assert.equal(byHost(part.model).size, hosts.size);
  assert.deepEqual(byHost(part.model), byHost(whole.model));
  const routes = (conf: typeof part.conf): Map<string, string> => new Map([...(conf.routeHosts ?? new Map<string, string>())].filter(([h]) => hosts.has(h)));
  assert.equal(routes(part.conf).size, hosts.size);
  assert.deepEqual(routes(part.conf), routes(whole.conf));
  assert.deepEqual(part.model.problems, []);
});

/** `n` apps that stand alone (host h<i>.test in ns-<i % 300>), with `annotated`'s annotations on those apps. */
function plain(n: number, annotated: Readonly<Record<number, Record<string, string>>>, hosts: Readonly<Record<number, string>> = {}): Snapshot {
  const apps = Array.from({ length: n }, (_, i) => app(i, { ...(annotated[i] ? { annotations: annotated[i] } : {}), ...(hosts[i] ? { host: hosts[i] } : {}) }));
  return {
    ...EMPTY_SNAPSHOT,
    ingressClasses: [ingressClass('portico')],
    ingresses: apps.map((a) => a.ing),
    services: apps.map((a, i) => service(`app-${i}`, a.ns)),
    endpointSlices: apps.map((a, i) => slice(`app-${i}`, 8080, [`10.0.${i >> 8}.${i & 255}`], { namespace: a.ns, name: `app-${i}-0` })),
  };
}

const dynamicConfig = parseFlags(['--manifests', '/nonexistent', '--enable-dynamic-routes'], {});
const render = (s: Snapshot): ReturnType<typeof buildAndRender> =>
  buildAndRender(new AnnotationStage(dynamicConfig, createLogger('silent')), s, dynamicConfig, renderOptions(dynamicConfig, undefined));

test('the head takes first the namespaces whose Ingresses keep server blocks: the whole then has the head nginx.conf (no reload)', () => {
  // ns-190 and ns-299 come last in the order namespaces first appear; their apps keep server blocks (proxy-body-size)
  const snap = plain(HEAD_MIN_INGRESSES + 500, { 2290: { [`${P}/proxy-body-size`]: '16m' }, 299: { [`${P}/proxy-body-size`]: '8m' } });
  const head = startupHead(snap, LIMITS);
  assert.ok(head);
  const inHead = names(head);
  assert.ok(inHead.has('app-2290') && inHead.has('app-299') && inHead.has('app-190'), 'their whole namespaces are in the head');
  assert.ok(inHead.has('app-0'), 'then the namespaces in the order they first appear');
  assert.ok(head.ingresses.length >= HEAD_INGRESSES && head.ingresses.length < snap.ingresses.length / 2, `${String(head.ingresses.length)} Ingresses`);
  const part = render(head);
  const whole = render(snap);
  assert.match(whole.conf.text, /server_name "h2290\.test";/);
  assert.equal(part.conf.text, whole.conf.text, "the head's nginx.conf is the whole's: the whole is pushed without a reload");
});

test('the head keeps its plain order when a reload cannot be saved or its first namespaces would be too many', () => {
  // app-2290 keeps a server block and shares its host with app-2291: it can only come with the whole
  const shared = plain(HEAD_MIN_INGRESSES + 500, { 2290: { [`${P}/proxy-body-size`]: '16m' }, 299: { [`${P}/proxy-body-size`]: '8m' } }, { 2291: 'h2290.test' });
  const one = startupHead(shared, LIMITS);
  assert.ok(one);
  assert.equal(names(one).has('app-299'), false, 'ns-299 waits its turn');
  assert.ok(names(one).has('app-0'));
  // a server alias always keeps a server block and is never in the head: the whole reloads anyway
  const alias = plain(HEAD_MIN_INGRESSES + 500, { 2290: { [`${P}/proxy-body-size`]: '16m' }, 5: { [`${P}/server-alias`]: 'alias.test' } });
  assert.equal(names(startupHead(alias, LIMITS) ?? EMPTY_SNAPSHOT).has('app-2290'), false, 'ns-190 waits its turn');
  // every namespace holds an Ingress with a body size limit: the head would be the cluster
  const everywhere = plain(HEAD_MIN_INGRESSES + 500, Object.fromEntries(Array.from({ length: 300 }, (_, i) => [i + 1200, { [`${P}/proxy-body-size`]: '16m' }])));
  const two = startupHead(everywhere, LIMITS);
  assert.ok(two);
  assert.ok(two.ingresses.length < HEAD_INGRESSES + 20, `the usual head size: ${String(two.ingresses.length)}`);
  assert.ok(names(two).has('app-0'));
});

test('each annotation the head takes first keeps its host in a server block under dynamic routes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-head-'));
  try {
    const ca = makeCert(dir, 'head-ca', { isCa: true });
    const config = parseFlags(['--manifests', '/nonexistent', '--enable-dynamic-routes', '--allow-snippet-annotations', '--annotations-risk-level', 'Critical'], {});
    const value: Record<string, string> = {
      '/proxy-body-size': '16m',
      '/configuration-snippet': 'add_header X-Head yes;',
      '/server-snippet': 'add_header X-Head yes;',
      '/use-regex': 'true',
      '/rewrite-target': '/$2',
      '/auth-url': 'http://auth.example/verify',
      '/default-backend': 'app-1',
      '/mirror-target': 'http://mirror.example/copy',
      '/auth-tls-secret': 'ns-a/ca',
      '/ssl-ciphers': 'HIGH',
      '/enable-opentelemetry': 'true',
    };
    assert.deepEqual(Object.keys(value).sort(), [...RENDERING].sort());
    for (const key of RENDERING) {
      const regex = key === '/use-regex' || key === '/rewrite-target';
      const paths = [{ path: regex ? '/a(/|$)(.*)' : '/', type: (regex ? 'ImplementationSpecific' : 'Prefix') as 'Prefix', service: 'app-0' }];
      const snap: Snapshot = {
        ...EMPTY_SNAPSHOT,
        ingressClasses: [ingressClass('portico')],
        ingresses: [
          ingress('app-0', { namespace: 'ns-a', className: 'portico', host: 'h0.test', paths, annotations: { [`${P}${key}`]: value[key] ?? '' } }),
          ingress('app-1', { namespace: 'ns-a', className: 'portico', host: 'h1.test', paths: [{ path: '/', type: 'Prefix', service: 'app-1' }] }),
        ],
        secrets: [caSecret('ca', ca.cert, 'ns-a')],
        services: [service('app-0', 'ns-a'), service('app-1', 'ns-a')],
        endpointSlices: [slice('app-0', 8080, ['10.0.0.1'], { namespace: 'ns-a', name: 'app-0-0' }), slice('app-1', 8080, ['10.0.0.2'], { namespace: 'ns-a', name: 'app-1-0' })],
      };
      const r = buildAndRender(new AnnotationStage(config, createLogger('silent')), snap, config, renderOptions(config, undefined));
      assert.deepEqual(r.model.problems, [], key);
      assert.match(r.conf.text, /server_name "h0\.test";/, `${key}: h0.test keeps its server block`);
      assert.doesNotMatch(r.conf.text, /server_name "h1\.test";/, `${key}: the plain h1.test is in the route table`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
