// Which listener serves a request, unit level: listener isolation (the hostnames of the more specific listeners of the
// same Gateway and port each route match carries) and the misdirected-request table (the listener of an SNI name and
// of a Host on the HTTPS port, Ingress hosts exempt) with the nginx.conf lines it gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildModel } from '../../src/model/build.js';
import { EMPTY_SNAPSHOT, type ModelOptions, type Snapshot } from '../../src/model/input.js';
import { narrower } from '../../src/model/gateway/isolation.js';
import { listenerOf, misdirected, misdirectTable } from '../../src/model/gateway/misdirected.js';
import type { ServedListener } from '../../src/model/gateway/attach.js';
import type { Gateway, HTTPRoute, Listener } from '../../src/model/gateway/api.js';
import { DEFAULT_PORTS } from '../../src/model/gateway/ports.js';
import { misdirectHttpLines } from '../../src/render/misdirected.js';
import { renderNginxConf } from '../../src/render/nginx-conf.js';
import { MODEL_OPTIONS, RENDER_OPTIONS, ingress, ingressClass, service, slice } from '../support/objects.js';

const CONTROLLER = 'portico.dev/gateway-controller';
const V1 = 'gateway.networking.k8s.io/v1';
const OPTIONS: ModelOptions = { ...MODEL_OPTIONS, gateway: { controllerName: CONTROLLER } };
const HOSTS: readonly (string | undefined)[] = [undefined, '*.example.com', '*.foo.example.com', 'abc.foo.example.com'];

function gw(name: string, hostnames: readonly (string | undefined)[]): Gateway {
  const listeners: Listener[] = hostnames.map((h, i) => ({ name: `l${i}`, port: 80, protocol: 'HTTP', ...(h === undefined ? {} : { hostname: h }), allowedRoutes: { namespaces: { from: 'All' } } }));
  return { apiVersion: V1, kind: 'Gateway', metadata: { name, namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { gatewayClassName: 'portico', listeners } };
}

function route(name: string, gateway: string, section: string | undefined, hostnames: string[] = [], namespace = 'default'): HTTPRoute {
  return {
    apiVersion: V1,
    kind: 'HTTPRoute',
    metadata: { name, namespace, creationTimestamp: '2026-01-02T00:00:00Z' },
    spec: {
      parentRefs: [{ name: gateway, namespace: 'default', ...(section === undefined ? {} : { sectionName: section }) }],
      ...(hostnames.length > 0 ? { hostnames } : {}),
      rules: [{ matches: [{ path: { type: 'PathPrefix', value: `/${name}` } }], backendRefs: [{ name: 'app', port: 80 }] }],
    },
  };
}

function snapshot(gateways: Gateway[], routes: HTTPRoute[], more: Partial<Snapshot> = {}): Snapshot {
  return {
    ...EMPTY_SNAPSHOT,
    services: [service('app'), service('ing', 'other')],
    endpointSlices: [slice('app', 80, ['10.0.0.1']), slice('ing', 80, ['10.0.0.2'], { namespace: 'other' })],
    gatewayClasses: [{ apiVersion: V1, kind: 'GatewayClass', metadata: { name: 'portico' }, spec: { controllerName: CONTROLLER } }],
    gateways,
    httpRoutes: routes,
    ...more,
  };
}

/** Each route's distinct exceptHosts across the route table, by route name ('' when a candidate has none). */
function exceptions(s: Snapshot): Record<string, string[]> {
  const model = buildModel(s, OPTIONS);
  const out: Record<string, Set<string>> = {};
  for (const list of Object.values(model.gateway?.locations ?? {})) {
    for (const c of list) {
      const name = model.gateway?.actions[c.action]?.route.name ?? '?';
      (out[name] ??= new Set()).add((c.match.exceptHosts ?? []).join(' '));
    }
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, [...v].sort()]));
}

test('a listener hostname is narrower than another when every name it serves the other serves too', () => {
  assert.equal(narrower('*.example.com', undefined), true);
  assert.equal(narrower('a.example.com', '*.example.com'), true);
  assert.equal(narrower('*.foo.example.com', '*.example.com'), true);
  assert.equal(narrower('a.b.example.com', '*.example.com'), true, 'a wildcard takes any number of labels');
  assert.equal(narrower('example.com', '*.example.com'), false, 'never the bare suffix');
  assert.equal(narrower('*.example.com', '*.example.com'), false);
  assert.equal(narrower('*.example.com', '*.foo.example.com'), false);
  assert.equal(narrower('a.example.com', 'b.example.com'), false);
  assert.equal(narrower(undefined, '*.example.com'), false);
});

test("each route carries the hostnames of its Gateway's more specific listeners on the port; the most specific one's runs no Lua", () => {
  const routes = HOSTS.map((_, i) => route(`r${i}`, 'web', `l${i}`));
  assert.deepEqual(exceptions(snapshot([gw('web', HOSTS)], routes)), {
    r0: ['*.example.com *.foo.example.com abc.foo.example.com'],
    r1: ['*.foo.example.com abc.foo.example.com'],
    r2: ['abc.foo.example.com'],
  });
});

test('route hostnames keep only the listener hostnames that can match them', () => {
  const s = snapshot([gw('web', HOSTS)], [route('r0', 'web', 'l0', ['bar.com', 'x.example.com']), route('r1', 'web', 'l1', ['*.example.com'])]);
  // bar.com: nothing to exclude (a plain location); x.example.com: only *.example.com can match it
  assert.deepEqual(exceptions(s), { r0: ['*.example.com'], r1: ['*.foo.example.com abc.foo.example.com'] });
});

test('a host a route also reaches through the most specific listener is not excluded', () => {
  // no sectionName: the route attaches through every listener, abc.foo.example.com through its own too
  const s = snapshot([gw('web', HOSTS)], [route('all', 'web', undefined, ['abc.foo.example.com'])]);
  assert.deepEqual(exceptions(s), {});
});

test('other Gateways and Ingresses on the same host and port do not isolate a route', () => {
  const s = snapshot([gw('web', [undefined]), gw('specific', ['abc.foo.example.com'])], [route('wide', 'web', 'l0'), route('narrow', 'specific', 'l0')], {
    ingressClasses: [ingressClass('portico')],
    ingresses: [ingress('ing', { namespace: 'other', className: 'portico', host: 'abc.foo.example.com', paths: [{ path: '/ing', type: 'Prefix', service: 'ing' }] })],
  });
  assert.deepEqual(exceptions(s), {});
});

/** The HTTPS listeners of the conformance suite's same-namespace-with-https-listener Gateway. */
function servedHttps(hostnames: readonly (string | undefined)[], port = 443): ServedListener[] {
  return hostnames.map((h, i) => ({
    gateway: { kind: 'Gateway', namespace: 'infra', name: 'tls' },
    listener: { name: `l${i}`, port, protocol: 'HTTPS', ...(h === undefined ? {} : { hostname: h }) },
    field: `spec.listeners[${i}]`,
  }));
}

const TLS_HOSTS = [undefined, 'second-example.org', '*.wildcard.org', 'fourth-example.wildcard.org'];

test('misdirected: 421 only when the SNI name and the Host name different listeners', () => {
  const t = misdirectTable(servedHttps(TLS_HOSTS), [], DEFAULT_PORTS);
  assert.ok(t);
  assert.equal(listenerOf(t, 'fith-example.wildcard.org'), listenerOf(t, 'third-example.wildcard.org'));
  assert.notEqual(listenerOf(t, 'fourth-example.wildcard.org'), listenerOf(t, 'third-example.wildcard.org'));
  const cases: [string, string, boolean][] = [
    ['example.org', 'second-example.org', true],
    ['example.org', 'unknown-example.org', false],
    ['second-example.org', 'unknown-example.org', true],
    ['third-example.wildcard.org', 'fith-example.wildcard.org', false],
    ['third-example.wildcard.org', 'fourth-example.wildcard.org', true],
    ['fourth-example.wildcard.org', 'fith-example.wildcard.org', true],
    ['unknown-example.org', 'example.org', false],
    ['Second-Example.org', 'second-example.org', false],
    ['', 'second-example.org', false],
  ];
  for (const [sni, host, want] of cases) assert.equal(misdirected(t, sni, host), want, `${sni} -> ${host}`);
});

test('misdirected: Ingress hosts are exempt on either side; one listener hostname, or listeners off the HTTPS port, give no table', () => {
  const t = misdirectTable(servedHttps(TLS_HOSTS), ['ingress.example.org', '*.ing.wildcard.org', '_'], DEFAULT_PORTS);
  assert.ok(t);
  assert.deepEqual(t.exempt, ['*.ing.wildcard.org', 'ingress.example.org']);
  assert.equal(misdirected(t, 'second-example.org', 'ingress.example.org'), false);
  assert.equal(misdirected(t, 'ingress.example.org', 'second-example.org'), false);
  assert.equal(misdirected(t, 'second-example.org', 'a.ing.wildcard.org'), false);
  assert.equal(misdirected(t, 'second-example.org', 'a.wildcard.org'), true);
  assert.equal(misdirectTable(servedHttps([undefined]), [], DEFAULT_PORTS), undefined);
  assert.equal(misdirectTable(servedHttps(['a.test']), [], DEFAULT_PORTS), undefined);
  assert.equal(misdirectTable(servedHttps(TLS_HOSTS, 8443), [], { ...DEFAULT_PORTS, portMap: new Map([[8443, 18443]]) }), undefined);
});

test('misdirected: nginx.conf gets the maps and each server the check only when the model has a table', () => {
  const t = misdirectTable(servedHttps(TLS_HOSTS), ['ingress.example.org'], DEFAULT_PORTS);
  assert.deepEqual(misdirectHttpLines(t).slice(1, 8), [
    '    map $ssl_server_name $portico_sni_listener {',
    '        hostnames;',
    '        default any;',
    '        "*.wildcard.org" l0;',
    '        "fourth-example.wildcard.org" l1;',
    '        "second-example.org" l2;',
    '        "ingress.example.org" -;',
  ]);
  const plain = renderNginxConf(buildModel(snapshot([gw('web', HOSTS)], []), OPTIONS), RENDER_OPTIONS).text;
  assert.doesNotMatch(plain, /portico_421|portico_misdirected/);
  const tls = renderNginxConf({ ...buildModel(snapshot([], []), OPTIONS), ...(t ? { misdirect: t } : {}) }, RENDER_OPTIONS).text;
  const servers = tls.split('    server {').filter((b) => b.includes('        server_name '));
  assert.ok(servers.length > 0);
  for (const s of servers) assert.match(s, /if \(\$portico_sni_or_host != \$host\) \{ set \$portico_421 \$portico_misdirected; \}\n\s+if \(\$portico_421\) \{ return 421; \}/);
  assert.match(tls, new RegExp(`"~\\^\\(\\?:${RENDER_OPTIONS.httpsPort}\\)\\?:\\(\\\\w\\+\\):\\(\\?!\\\\1\\$\\)\\\\w\\+\\$" 1;`));
});
