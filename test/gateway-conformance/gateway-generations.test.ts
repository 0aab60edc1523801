// Gateway API conformance (v1.6.1), the tests about status written through the API server: observedGeneration bumps
// (GatewayClass, Gateway, HTTPRoute), listeners added and removed (GatewayModifyListeners) and parametersRef that
// Portico cannot honour (GatewayInvalidParametersRef). A real Portico runs against the API server double, and the
// assertions read the objects the double holds, as upstream's read them from the cluster. Manifests are our own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert } from '../support/certs.js';
import { gateway, gatewayClass, httpRoute } from '../support/gateway.js';
import { until, who, type Running } from '../support/portico.js';
import { put, startCluster, type Cluster } from '../kube/cluster.js';

type Cond = { type: string; status: string; reason: string; observedGeneration?: number };
type Obj = {
  metadata: { name: string; namespace?: string; generation?: number };
  spec: Record<string, unknown>;
  status?: { conditions?: Cond[]; listeners?: { name: string; attachedRoutes: number; conditions: Cond[] }[]; parents?: { conditions: Cond[] }[] };
};

const WAIT_MS = 30_000;

describe('GATEWAY-HTTP conformance: generations, listeners and parameters through the API server', () => {
  let c: Cluster;
  let p: Running;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-generations-'));
    c = await startCluster(['one']);
    put(c.api, gatewayClass('portico'));
    p = await c.portico();
  });
  after(async () => {
    await c?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const obj = (kind: string, name: string, ns = 'default'): Obj => {
    const o = c.api.get(kind, kind === 'GatewayClass' ? '' : ns, name) as Obj | undefined;
    assert.ok(o, `${kind} ${name} exists`);
    return o;
  };
  /** The object as the API server holds it, with `spec` changed (status kept, as a patch of spec would). */
  const change = (kind: string, name: string, spec: (old: Record<string, unknown>) => Record<string, unknown>): number => {
    const old = obj(kind, name);
    put(c.api, { ...old, spec: spec(old.spec) });
    const now = obj(kind, name).metadata.generation ?? 0;
    assert.ok(now > (old.metadata.generation ?? 0), `${kind} ${name}: a spec change bumps metadata.generation`);
    return now;
  };
  /** Every condition Portico wrote carries this generation (conformance's "latest conditions"). */
  const latest = (cs: readonly Cond[] | undefined, generation: number): boolean => (cs ?? []).length > 0 && (cs ?? []).every((x) => x.observedGeneration === generation);
  const has = (cs: readonly Cond[] | undefined, type: string, status: string, reason?: string): boolean =>
    (cs ?? []).some((x) => x.type === type && x.status === status && (reason === undefined || x.reason === reason));

  test('GatewayClassObservedGenerationBump', async () => {
    put(c.api, gatewayClass('generations'));
    await until('GatewayClass Accepted at generation 1', () => latest(obj('GatewayClass', 'generations').status?.conditions, 1), WAIT_MS);
    const generation = change('GatewayClass', 'generations', (s) => ({ ...s, description: 'a class whose description changed' }));
    await until(
      `GatewayClass conditions at generation ${generation}`,
      () => {
        const cs = obj('GatewayClass', 'generations').status?.conditions;
        return latest(cs, generation) && has(cs, 'Accepted', 'True');
      },
      WAIT_MS,
    );
  });

  test('GatewayObservedGenerationBump', async () => {
    put(c.api, gateway('generations', [{ name: 'http' }]));
    const settled = (generation: number): boolean => {
      const s = obj('Gateway', 'generations').status;
      return latest(s?.conditions, generation) && (s?.listeners ?? []).length > 0 && (s?.listeners ?? []).every((l) => latest(l.conditions, generation));
    };
    await until('Gateway and listener conditions at generation 1', () => settled(1), WAIT_MS);
    const generation = change('Gateway', 'generations', (s) => ({
      ...s,
      listeners: [...(s['listeners'] as unknown[]), { name: 'http-2', port: 80, protocol: 'HTTP', hostname: 'generations.example.test' }],
    }));
    await until(`Gateway and listener conditions at generation ${generation}`, () => settled(generation) && obj('Gateway', 'generations').status?.listeners?.length === 2, WAIT_MS);
    assert.ok(has(obj('Gateway', 'generations').status?.conditions, 'Accepted', 'True'));
  });

  test('HTTPRouteObservedGenerationBump', async () => {
    put(c.api, gateway('route-generations', [{ name: 'http' }]));
    put(c.api, httpRoute('generations', { parentRefs: [{ name: 'route-generations' }], hostnames: ['route-generations.example.test'], rules: [{ backendRefs: [{ name: 'one', port: 80 }] }] }));
    const settled = (generation: number): boolean => {
      const parents = obj('HTTPRoute', 'generations').status?.parents ?? [];
      return parents.length === 1 && parents.every((x) => latest(x.conditions, generation) && has(x.conditions, 'Accepted', 'True'));
    };
    await until('HTTPRoute parent conditions at generation 1', () => settled(1), WAIT_MS);
    const generation = change('HTTPRoute', 'generations', (s) => ({ ...s, hostnames: ['route-generations.example.test', 'also.example.test'] }));
    await until(`HTTPRoute parent conditions at generation ${generation}`, () => settled(generation), WAIT_MS);
    await until('the changed route serves its new hostname', async () => (await who(p.http, 'also.example.test', '/')) === 'one', WAIT_MS);
  });

  test('GatewayModifyListeners', async () => {
    const cert = makeCert(dir, 'secure.example.test', { sans: ['secure.example.test'] });
    put(c.api, {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/tls',
      metadata: { name: 'secure', namespace: 'default' },
      data: { 'tls.crt': Buffer.from(cert.cert).toString('base64'), 'tls.key': Buffer.from(cert.key).toString('base64') },
    });
    const https = { name: 'https', protocol: 'HTTPS' as const, hostname: 'secure.example.test', certificateRefs: [{ name: 'secure' }], from: 'All' as const };
    const http = { name: 'http', hostname: 'data.example.test', from: 'All' as const };
    const listeners = (gw: string): string =>
      JSON.stringify((obj('Gateway', gw).status?.listeners ?? []).map((l) => [l.name, l.attachedRoutes, has(l.conditions, 'Accepted', 'True') && has(l.conditions, 'ResolvedRefs', 'True')]));
    const routeTo = (gw: string): Record<string, unknown> => httpRoute(`to-${gw}`, { parentRefs: [{ name: gw }], rules: [{ backendRefs: [{ name: 'one', port: 80 }] }] });

    // adding a listener: its status appears, routes attach to it, and it serves
    put(c.api, gateway('add-listener', [https]));
    put(c.api, routeTo('add-listener'));
    await until('one HTTPS listener with its route', () => listeners('add-listener') === '[["https",1,true]]', WAIT_MS);
    const added = change('Gateway', 'add-listener', () => gateway('add-listener', [https, http])['spec'] as Record<string, unknown>);
    await until('the added HTTP listener has its route too', () => listeners('add-listener') === '[["https",1,true],["http",1,true]]', WAIT_MS);
    await until('Gateway conditions at the new generation', () => latest(obj('Gateway', 'add-listener').status?.conditions, added), WAIT_MS);
    await until('the added listener serves', async () => (await who(p.http, 'data.example.test', '/')) === 'one', WAIT_MS);

    // removing a listener: its status goes, and it serves no more
    put(c.api, gateway('remove-listener', [https, { ...http, hostname: 'gone.example.test' }]));
    put(c.api, routeTo('remove-listener'));
    await until('two listeners, each with the route', () => listeners('remove-listener') === '[["https",1,true],["http",1,true]]', WAIT_MS);
    await until('the HTTP listener serves', async () => (await who(p.http, 'gone.example.test', '/')) === 'one', WAIT_MS);
    const removed = change('Gateway', 'remove-listener', () => gateway('remove-listener', [https])['spec'] as Record<string, unknown>);
    await until('only the HTTPS listener is left', () => listeners('remove-listener') === '[["https",1,true]]', WAIT_MS);
    await until('Gateway conditions at the new generation', () => latest(obj('Gateway', 'remove-listener').status?.conditions, removed), WAIT_MS);
    await until('the removed listener serves no more', async () => (await who(p.http, 'gone.example.test', '/')) === '404', WAIT_MS);
  });

  test('GatewayInvalidParametersRef', async () => {
    const g = gateway('invalid-parameters', [{ name: 'http', hostname: 'parameters.example.test' }]);
    put(c.api, { ...g, spec: { ...(g['spec'] as object), infrastructure: { parametersRef: { group: 'invalid.example.test', kind: 'InvalidParameters', name: 'invalid' } } } });
    put(c.api, httpRoute('to-invalid-parameters', { parentRefs: [{ name: 'invalid-parameters' }], rules: [{ backendRefs: [{ name: 'one', port: 80 }] }] }));
    await until(
      'Gateway Accepted False InvalidParameters, at its generation',
      () => {
        const cs = obj('Gateway', 'invalid-parameters').status?.conditions;
        return latest(cs, 1) && has(cs, 'Accepted', 'False', 'InvalidParameters');
      },
      WAIT_MS,
    );
    assert.equal(await who(p.http, 'parameters.example.test', '/'), '404', 'a Gateway that is not accepted is not served');

    // a GatewayClass whose parametersRef names an object Portico cannot read (here one that does not exist)
    put(c.api, {
      ...gatewayClass('with-parameters'),
      spec: { controllerName: 'portico.dev/gateway-controller', parametersRef: { group: '', kind: 'ConfigMap', name: 'missing', namespace: 'default' } },
    });
    await until('GatewayClass Accepted False InvalidParameters', () => has(obj('GatewayClass', 'with-parameters').status?.conditions, 'Accepted', 'False', 'InvalidParameters'), WAIT_MS);
  });
});
