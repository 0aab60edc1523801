// The head of a large first sync (src/controller/startup-head.ts): which Ingresses stand alone, and that the head's
// model serves each of their hosts exactly as the whole cluster's model does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlags } from '../../src/config/flags.js';
import { createLogger } from '../../src/log.js';
import { AnnotationStage } from '../../src/pipeline/annotations.js';
import { buildAndRender, renderOptions } from '../../src/pipeline/build.js';
import { HEAD_INGRESSES, HEAD_MIN_INGRESSES, startupHead } from '../../src/controller/startup-head.js';
import { EMPTY_SNAPSHOT, type Ingress, type Snapshot } from '../../src/model/input.js';
import { ingress, ingressClass, service, slice } from '../support/objects.js';

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
