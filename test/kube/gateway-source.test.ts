// The Gateway API kinds through the API server double: listed and watched into the store, optional when the CRDs are missing, off with --enable-gateway-api=false.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { until, type Running } from '../support/portico.js';
import { gateway, gatewayClass, grpcRoute, httpRoute, referenceGrant } from '../support/gateway.js';
import { put, route, serves, startCluster, type Cluster } from './cluster.js';

const GROUP = '/apis/gateway.networking.k8s.io/';

/** The object counts of Portico's "initial lists done" log line. */
function listedCounts(p: Running): Record<string, number> | undefined {
  const line = p.output.find((l) => l.includes('"msg":"initial lists done; watching"'));
  return line ? (JSON.parse(line) as { objects: Record<string, number> }).objects : undefined;
}

function gatewayObjects(): unknown[] {
  return [
    gatewayClass('portico'),
    gateway('web', [{ name: 'http' }]),
    httpRoute('app', { parentRefs: [{ name: 'web' }], rules: [{ backendRefs: [{ name: 'one', port: 80 }] }] }),
    { ...referenceGrant('let-default', 'default', 'other', 'Service'), apiVersion: 'gateway.networking.k8s.io/v1' },
  ];
}

describe('Gateway API source', () => {
  const clusters: Cluster[] = [];
  after(async () => {
    for (const c of clusters) assert.deepEqual(await c.stop(), [0], 'SIGTERM stops Portico with exit code 0');
  });

  test('the Gateway API kinds are listed at start, and watched', async () => {
    const c = await startCluster(['one']);
    clusters.push(c);
    for (const o of gatewayObjects()) put(c.api, o);
    // A GRPCRoute on the HTTP listener: read, and told it does not attach there (docs/adr/0020).
    put(c.api, grpcRoute('rpc', { parentRefs: [{ name: 'web' }], rules: [{ backendRefs: [{ name: 'one', port: 80 }] }] }));
    put(c.api, route('app', 'app.test', 'one'));
    // A BackendTLSPolicy on Service one whose CA ConfigMap is missing: read, and its ancestor status says why.
    put(c.api, {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'BackendTLSPolicy',
      metadata: { name: 'tls-one', namespace: 'default' },
      spec: { targetRefs: [{ group: '', kind: 'Service', name: 'one' }], validation: { caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'absent' }], hostname: 'one.test' } },
    });
    const p = await c.portico();
    await until('the initial lists are logged', () => listedCounts(p) !== undefined);
    const counts = listedCounts(p) ?? {};
    assert.deepEqual([counts['GatewayClass'], counts['Gateway'], counts['HTTPRoute'], counts['GRPCRoute'], counts['ReferenceGrant'], counts['BackendTLSPolicy']], [1, 1, 1, 1, 1, 1]);
    // The leader (--update-status, the default) writes GatewayClass Accepted and the route's parent status.
    type Conds = { status?: { conditions?: { type: string; status: string }[]; parents?: { conditions: { type: string; status: string; reason: string }[] }[] } };
    const parentsOf = (kind: string, name: string): string =>
      JSON.stringify(((c.api.get(kind, 'default', name) as Conds | undefined)?.status?.parents ?? []).map((p) => p.conditions.map((x) => `${x.type}=${x.reason}`)));
    await until('GatewayClass, HTTPRoute and GRPCRoute status written', () => {
      const cls = (c.api.get('GatewayClass', '', 'portico') as Conds | undefined)?.status?.conditions ?? [];
      return (
        cls.some((x) => x.type === 'Accepted' && x.status === 'True') &&
        parentsOf('HTTPRoute', 'app') === '[["Accepted=Accepted","ResolvedRefs=ResolvedRefs"]]' &&
        parentsOf('GRPCRoute', 'rpc') === '[["Accepted=NotAllowedByListeners","ResolvedRefs=ResolvedRefs"]]'
      );
    });
    type Ancestors = { status?: { ancestors?: { ancestorRef: { name: string }; conditions: { type: string; reason: string }[] }[] } };
    await until('BackendTLSPolicy status written', () => {
      const a = (c.api.get('BackendTLSPolicy', 'default', 'tls-one') as Ancestors | undefined)?.status?.ancestors ?? [];
      return (
        JSON.stringify(a.map((x) => [x.ancestorRef.name, x.conditions.map((y) => `${y.type}=${y.reason}`)])) === '[["web",["Accepted=NoValidCACertificate","ResolvedRefs=InvalidCACertificateRef"]]]'
      );
    });
    const watched = new Set(
      c.api
        .requests()
        .filter((r) => r.verb === 'watch' && r.path.startsWith(GROUP))
        .map((r) => r.path),
    );
    assert.deepEqual([...watched].sort(), [
      '/apis/gateway.networking.k8s.io/v1/backendtlspolicies',
      '/apis/gateway.networking.k8s.io/v1/gatewayclasses',
      '/apis/gateway.networking.k8s.io/v1/gateways',
      '/apis/gateway.networking.k8s.io/v1/grpcroutes',
      '/apis/gateway.networking.k8s.io/v1/httproutes',
      '/apis/gateway.networking.k8s.io/v1/listenersets',
      '/apis/gateway.networking.k8s.io/v1/referencegrants',
      '/apis/gateway.networking.k8s.io/v1/tcproutes',
      '/apis/gateway.networking.k8s.io/v1/tlsroutes',
      '/apis/gateway.networking.k8s.io/v1/udproutes',
    ]);
  });

  test('a cluster serving ReferenceGrant at v1beta1 only (CRDs before v1.5): read there', async () => {
    const c = await startCluster(['one']);
    clusters.push(c);
    c.api.failRequests(
      { verb: 'list', kind: 'ReferenceGrant', apiVersion: 'gateway.networking.k8s.io/v1' },
      { code: 404, reason: 'NotFound', message: 'the server could not find the requested resource', times: 100 },
    );
    put(c.api, referenceGrant('let-default', 'default', 'other', 'Service'));
    put(c.api, route('app', 'app.test', 'one'));
    const p = await c.portico();
    await serves(p, 'app.test', 'one');
    await until('the initial lists are logged', () => listedCounts(p) !== undefined);
    assert.equal(listedCounts(p)?.['ReferenceGrant'], 1);
    const watched = c.api.requests().filter((r) => r.verb === 'watch' && r.path.endsWith('/referencegrants'));
    assert.deepEqual([...new Set(watched.map((r) => r.path))], ['/apis/gateway.networking.k8s.io/v1beta1/referencegrants']);
    assert.ok(!p.output.some((l) => l.includes('"level":40') && l.includes('referencegrants')), 'no Warning: v1beta1 is a version the cluster serves');
  });

  test('a cluster without the CRDs (the list answers 404): Ingresses are served, one Warning names the fix', async () => {
    const c = await startCluster(['one']);
    clusters.push(c);
    c.api.failRequests({ verb: 'list', kind: 'HTTPRoute' }, { code: 404, reason: 'NotFound', message: 'the server could not find the requested resource', times: 1 });
    put(c.api, route('app', 'app.test', 'one'));
    const p = await c.portico();
    await serves(p, 'app.test', 'one');
    const warning = p.output.find((l) => l.includes('"feed":"HTTPRoute"') && l.includes('no HTTPRoute is served until Portico restarts'));
    assert.ok(warning, 'a Warning says HTTPRoutes are not served and how to fix it');
    assert.ok(warning.includes('install deploy/gateway-api/'));
  });

  test('a cluster with none of the Gateway API CRDs: one info line names the kinds and the fix, no Warning', async () => {
    const c = await startCluster(['one']);
    clusters.push(c);
    const kinds = ['GatewayClass', 'Gateway', 'HTTPRoute', 'GRPCRoute', 'TLSRoute', 'TCPRoute', 'UDPRoute', 'ListenerSet', 'ReferenceGrant', 'BackendTLSPolicy'];
    // ReferenceGrant is asked for twice: at v1, then at v1beta1.
    for (const kind of kinds)
      c.api.failRequests({ verb: 'list', kind }, { code: 404, reason: 'NotFound', message: 'the server could not find the requested resource', times: kind === 'ReferenceGrant' ? 2 : 1 });
    put(c.api, route('app', 'app.test', 'one'));
    const p = await c.portico();
    await serves(p, 'app.test', 'one');
    await until('the initial lists are logged', () => listedCounts(p) !== undefined);
    // The leader's first Gateway API status pass (it reads the CRDs too) has had its chance to log.
    await until('leading', () => p.output.some((l) => l.includes('"msg":"became the leader"')), 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const level = (l: string): number => (JSON.parse(l) as { level: number }).level;
    const about = p.output.filter((l) => l.startsWith('{') && /gateway\.networking\.k8s\.io|Gateway API|deploy\/gateway-api/.test(l));
    assert.deepEqual(
      about.filter((l) => level(l) >= 40),
      [],
      'no Warning for an optional API that is simply not installed',
    );
    const said = about.filter((l) => l.includes('deploy/gateway-api/'));
    assert.equal(said.length, 1, `one line says it:\n${about.join('\n')}`);
    for (const kind of kinds) assert.ok(said[0]?.includes(kind), `it names ${kind}: ${said[0] ?? ''}`);
    assert.ok(said[0]?.includes('--enable-gateway-api=false'));
  });

  test('a cluster whose CRDs predate TLSRoute v1 (before Gateway API v1.5): an info line for TLSRoute alone, no Warning', async () => {
    const c = await startCluster(['one']);
    clusters.push(c);
    c.api.failRequests({ verb: 'list', kind: 'TLSRoute' }, { code: 404, reason: 'NotFound', message: 'the server could not find the requested resource', times: 1 });
    put(c.api, route('app', 'app.test', 'one'));
    const p = await c.portico();
    await serves(p, 'app.test', 'one');
    await until('the TLSRoute line', () => p.output.some((l) => l.includes('TLSRoutes are not watched')), 10_000);
    const level = (l: string): number => (JSON.parse(l) as { level: number }).level;
    const about = p.output.filter((l) => l.startsWith('{') && /TLSRoute|deploy\/gateway-api/.test(l));
    assert.deepEqual(
      about.filter((l) => level(l) >= 40),
      [],
      'no Warning',
    );
  });

  test('--enable-gateway-api=false: Portico never asks for the Gateway API kinds', async () => {
    const c = await startCluster(['one']);
    clusters.push(c);
    for (const o of gatewayObjects()) put(c.api, o);
    put(c.api, route('app', 'app.test', 'one'));
    const p = await c.portico(['--enable-gateway-api=false']);
    await serves(p, 'app.test', 'one');
    assert.deepEqual(
      c.api.requests().filter((r) => r.path.startsWith(GROUP)),
      [],
    );
  });
});
